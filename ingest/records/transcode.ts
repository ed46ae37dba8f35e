// The fast path from IPFIX to the log: a compiled function per template layout that writes a data record's flow
// key and framed Avro FlowRecord straight from the record's IPFIX bytes, located by the codec's scanRecord. No
// JavaScript object or string is made per record: integers become zig-zag varints, strings, addresses and
// `extras` are copied (IPFIX and Avro strings are the same UTF-8 bytes), and everything constant for a layout
// (framing header, absent fields) is one precomputed byte run. What differs between sessions and templates of
// the same layout (origin, observation domain, template id) is read from the MessageContext, so that one
// compiled function serves every session (transcoder-cache.ts).
//
// It must produce exactly the bytes of the reference builder (build.ts) for the same record: both follow the
// same plan (plan.ts), and transcode.test.ts checks the equality on random templates and values.
//
// Output layout per record in the RecordBuffer: flow key, then the framed Avro value.
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { readValue } from '../../lib/ipfix/field-codec.js';
import { interpretedScanner, layoutShape, MAX_COMPILED_FIELDS, recordLayout } from '../../lib/ipfix/record-layout.js';
import type { FieldValue, Template } from '../../lib/ipfix/types.js';
import { type AvroFraming, type AvroType, framingHeader } from '../../schemas/avro.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, FLOW_RECORD_TYPE, type FlowRecordField, flowRecordWriter } from '../../schemas/flow-record.js';
import { buildFlowRecord, encodeFlowRecord, SAMPLING_FIELD } from './build.js';
import { copyBytes, ViewCache, writeBytes, writeIpfixString, writeLong, writeVarint, writeZeros } from '../../schemas/avro-binary.js';
import { type MessageContext, ORIGIN_FIELDS } from './context.js';
import { hasText, limitLong, ntpMicrosToMs, ntpNanosToMs, safeSignedAt, safeUnsigned64, safeUnsignedAt, signedAt, unsignedAt, upTimeOf } from './ipfix-read.js';
import { FLOW_KEY_MAX_LENGTH, FlowKeyInput, writeFlowKey } from '../../schemas/flow-key.js';
import { planFor, type RecordPlan, type TimePlan } from './plan.js';
import type { RecordBuffer } from '../../schemas/record-buffer.js';

/** Writes the record whose fields scanRecord located (starts, lengths) into `out`. */
type WriteRecord = (b: Uint8Array, starts: Int32Array, lengths: Int32Array, recordLength: number, msg: MessageContext, out: RecordBuffer) => void;

export interface Transcoder {
  readonly plan: RecordPlan;
  /** Bytes of the shortest record of the layout; fewer left in a set are padding. */
  readonly minLength: number;
  /** The record length when the layout has no variable-length field. */
  readonly fixedLength: number | undefined;
  /**
   * Transcodes the data record at b[offset..end) into `out` (key: out.key(), value: out.value()). Returns the
   * offset after the record, or -1 when the record is cut off before `end` (nothing written).
   */
  transcode(b: Uint8Array, offset: number, end: number, msg: MessageContext, out: RecordBuffer): number;
}

const helpers = {
  ua: unsignedAt, sa: signedAt, us: safeUnsignedAt, ss: safeSignedAt, ntpUs: ntpMicrosToMs, ntpNs: ntpNanosToMs, ht: hasText, lim: limitLong,
  wv: writeVarint, wl: writeLong, upt: upTimeOf, wz: writeZeros, u64: safeUnsigned64, cp: copyBytes, wb: writeBytes, ws: writeIpfixString, wk: writeFlowKey,
};

// ---- code generation ----

type Element = FlowRecordField & { kind: 'element' };

const avscFields = (FLOW_RECORD_TYPE as unknown as { fields: { name: string; type: AvroType }[] }).fields;

/** The Avro encoding of a value of FlowRecord field `name`, computed once with avsc. */
function encodeField(name: string, value: unknown): Buffer {
  return avscFields.find((f) => f.name === name)!.type.toBuffer(value);
}

function bytesSource(bytes: Iterable<number>): string {
  return [...bytes].map((v) => `o[p++] = ${v};`).join(' ');
}

/** Generated source builder: constant bytes are merged into runs, passed to the function as helpers. */
export class Emitter {
  readonly lines: string[] = [];
  readonly consts: Record<string, Buffer | DataView> = {};
  /** Upper bound of the bytes written, besides 3 × the record length. */
  max = 0;
  private run: number[] = [];

  bytes(b: Uint8Array | readonly number[]): void {
    this.run.push(...b);
  }

  code(line: string, maxBytes: number): void {
    this.flush();
    this.lines.push(line);
    this.max += maxBytes;
  }

  flush(): void {
    if (this.run.length === 0) return;
    if (this.run.length <= 2) {
      this.lines.push(bytesSource(this.run));
    } else if (this.run.every((v) => v === 0)) {
      this.lines.push(`p = wz(o, ov, p, ${this.run.length});`);
    } else {
      const name = `C${Object.keys(this.consts).length / 2}`;
      const bytes = Buffer.from(this.run);
      this.consts[name] = bytes;
      this.consts[`${name}v`] = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
      this.lines.push(`p = cp(o, ov, p, ${name}, ${name}v, 0, ${this.run.length});`);
    }
    this.max += this.run.length;
    this.run = [];
  }
}

function readExpression(type: string, at: string, len: number): string {
  const signed = type.startsWith('signed');
  if (len === 1) return signed ? `((b[${at}] << 24) >> 24)` : `b[${at}]`;
  if (len === 2) return signed ? `(((b[${at}] << 24) >> 16) | b[${at} + 1])` : `((b[${at}] << 8) | b[${at} + 1])`;
  if (len === 4 && !signed) return `bv.getUint32(${at})`;
  if (len === 8 && !signed) return `u64(bv, ${at})`;
  if (len > 6) return `${signed ? 'ss' : 'us'}(b, ${at}, ${len})`;
  return `${signed ? 'sa' : 'ua'}(b, ${at}, ${len})`;
}

function timeExpression(t: TimePlan, template: Template): string {
  const at = `s[${t.index}]`;
  const len = template.fields[t.index]!.length;
  switch (t.source) {
    case 'seconds': return `bv.getUint32(${at}) * 1000`;
    case 'milliseconds': return `u64(bv, ${at})`;
    case 'microseconds': return `ntpUs(b, ${at})`;
    case 'nanoseconds': return `ntpNs(b, ${at})`;
    case 'sysUpTime': return `init + upt(ua(b, ${at}, ${len}), m.upTime)`;
    case 'deltaMicroseconds': return `m.exportTime * 1000 - Math.ceil(ua(b, ${at}, ${len}) / 1000)`;
  }
}

const KEY_FIELDS: Readonly<Record<string, keyof FlowKeyInput>> = {
  sourceIPv4Address: 'sourceIPv4', destinationIPv4Address: 'destinationIPv4', sourceIPv6Address: 'sourceIPv6',
  destinationIPv6Address: 'destinationIPv6', proxySnatIPv4: 'proxySnatIPv4', proxySnatIPv6: 'proxySnatIPv6',
  protocolIdentifier: 'protocol', sourceTransportPort: 'sourcePort', destinationTransportPort: 'destinationPort',
  proxySnatPort: 'proxySnatPort', flowType: 'flowType', destinationPodName: 'destinationPodNamed',
};

function keySource(plan: RecordPlan): string[] {
  const lines = ['k.reset(b);'];
  FLOW_RECORD_FIELDS.forEach((field, fi) => {
    const i = plan.sourceIndex[fi]!;
    const slot = KEY_FIELDS[field.name];
    if (field.kind !== 'element' || slot === undefined || i < 0) return;
    const len = plan.template.fields[i]!.length;
    if (field.encoding === 'fixed') lines.push(`k.${slot} = s[${i}];`);
    else if (field.encoding === 'string') lines.push(`k.${slot} = ht(b, s[${i}], n[${i}]);`);
    else lines.push(`k.${slot} = ${readExpression(field.ie.type, `s[${i}]`, len)};`);
  });
  lines.push('out.keyStart = p;', 'p = wk(k, o, p);', 'out.keyEnd = p;');
  return lines;
}

/** samplingInterval from what the exporter announced (build.ts announcedSampling). */
function announcedSamplingSource(e: Emitter, plan: RecordPlan): void {
  const k = plan.samplerIndex;
  const sampler = k < 0 ? '-1' : `ua(b, s[${k}], n[${k}])`;
  e.code(`{ const si = m.sampling === undefined ? -1 : m.sampling.intervalOf(${sampler}); if (si >= 1) { o[p++] = 2; p = wl(o, p, si); } else o[p++] = 0; }`, 11);
}

function elementSource(e: Emitter, field: Element, i: number, plan: RecordPlan, fi: number): void {
  const template = plan.template;
  if (i < 0) return fi === SAMPLING_FIELD ? announcedSamplingSource(e, plan) : e.bytes([0]);
  const at = `s[${i}]`;
  const len = template.fields[i]!.length;
  switch (field.encoding) {
    case 'string':
      // Empty strings are common (Antrea sends "" for every absent policy or Egress name).
      return e.code(`o[p++] = 2; if (n[${i}] === 0) o[p++] = 0; else p = ws(o, ov, p, b, bv, ${at}, n[${i}]);`, 6);
    case 'fixed':
      return e.code(`o[p++] = 2; p = cp(o, ov, p, b, bv, ${at}, ${field.size});`, 1 + field.size);
    case 'int':
    case 'long':
      if (len > 6) return e.code(`const v${i} = ${readExpression(field.ie.type, at, len)}; if (v${i} === v${i}) { o[p++] = 2; p = wl(o, p, v${i}); } else { o[p++] = 0; x${i} = 1; }`, 11);
      // Unsigned values of up to 3 bytes: zig-zag is doubling, and the varint stays in int arithmetic.
      if (len <= 3 && !field.ie.type.startsWith('signed')) return e.code(`o[p++] = 2; p = wv(o, p, ${readExpression(field.ie.type, at, len)} * 2);`, 5);
      return e.code(`o[p++] = 2; p = wl(o, p, ${readExpression(field.ie.type, at, len)});`, 11);
  }
}

let compiled = 0;

function compile(template: Template, plan: RecordPlan, header: Buffer): WriteRecord {
  const e = new Emitter();
  const top = ['out.reserve(MAX + m.origin.bytes.length + 3 * len);', 'const o = out.buf;', 'const ov = out.view;', 'const bv = views.of(b);', 'let p = out.pos;'];
  const conditional = new Set(plan.extras.filter((x) => x.conditional).map((x) => x.index));
  for (const i of conditional) top.push(`let x${i} = 0;`);
  const time = { flowStart: 't0', flowEnd: 't1' } as const;
  if (plan.time.flowStart?.source === 'sysUpTime' || plan.time.flowEnd?.source === 'sysUpTime') {
    top.push(plan.systemInitIndex >= 0 ? `let init = u64(bv, s[${plan.systemInitIndex}]); if (init !== init) init = m.systemInitTime ?? NaN;` : 'const init = m.systemInitTime ?? NaN;');
  }
  for (const which of ['flowStart', 'flowEnd'] as const) {
    const t = plan.time[which];
    top.push(`const ${time[which]} = ${t === undefined ? 'NaN' : `lim(${timeExpression(t, template)})`};`);
    if (t !== undefined && conditional.has(t.index)) top.push(`if (${time[which]} !== ${time[which]}) x${t.index} = 1;`);
  }
  e.lines.push(...keySource(plan));
  e.max += FLOW_KEY_MAX_LENGTH;
  e.bytes(header);
  FLOW_RECORD_FIELDS.forEach((field, fi) => {
    switch (field.kind) {
      case 'source':
        // The origin's fields are one run of bytes, made once per session (context.ts).
        if (field.name === ORIGIN_FIELDS[0]) return e.code('p = cp(o, ov, p, m.origin.bytes, m.origin.view, 0, m.origin.bytes.length);', 0);
        if ((ORIGIN_FIELDS as readonly string[]).includes(field.name)) return;
        return e.code(`p = wl(o, p, ${field.name === 'exportTime' ? 'm.exportTime * 1000' : `m.${field.name}`});`, 10);
      case 'element':
        return elementSource(e, field, plan.sourceIndex[fi]!, plan, fi);
      case 'time':
        return e.code(`if (${time[field.which]} === ${time[field.which]}) { o[p++] = 2; p = wl(o, p, ${time[field.which]}); } else o[p++] = 0;`, 11);
      case 'timeSource': {
        const t = plan.time[field.which];
        if (t === undefined) return e.bytes([0]);
        const bytes = [...encodeField(field.name, t.source)];
        return e.code(`if (${time[field.which]} === ${time[field.which]}) { ${bytesSource(bytes)} } else o[p++] = 0;`, bytes.length);
      }
      case 'extras': {
        const always = plan.extras.filter((x) => !x.conditional).length;
        const count = [String(always), ...plan.extras.filter((x) => x.conditional).map((x) => `x${x.index}`)].join(' + ');
        e.code(`const c = ${count};`, 0);
        e.code('if (c > 0) p = wv(o, p, c * 2);', 10);
        for (const x of plan.extras) {
          const ie = template.fields[x.index]!.ie;
          const prefix = Buffer.alloc(15);
          const prefixLength = writeLong(prefix, writeLong(prefix, 0, ie.pen), ie.id);
          const item = `${bytesSource(prefix.subarray(0, prefixLength))} p = wb(o, ov, p, b, bv, s[${x.index}], n[${x.index}]);`;
          e.code(x.conditional ? `if (x${x.index} === 1) { ${item} }` : item, prefixLength + 5);
        }
        return e.bytes([0]);
      }
      case 'default':
        return e.bytes(field.defaultBytes);
    }
  });
  e.flush();
  e.lines.push('out.valueEnd = p;', 'out.pos = p;');
  const body = [...top, ...e.lines].join('\n');
  return compileFunction<WriteRecord>(`transcodeLayout${++compiled}`, ['b', 's', 'n', 'len', 'm', 'out'], body, {
    ...helpers, ...e.consts, k: new FlowKeyInput(), views: new ViewCache(), MAX: e.max,
  });
}

const SINGLE_OBJECT: AvroFraming = { kind: 'single-object' };
let defaultWriter: ReturnType<typeof flowRecordWriter> | undefined;
let singleObjectHeader: Buffer | undefined;

/**
 * The interpreted transcoder: the reference builder, whose bytes are the same. For templates too large to compile
 * cheaply (more fields than the codec compiles either), and for a layout's first records before it is compiled.
 * Only the fields the plan types are decoded (with the codec's readValue, whose lengths the plan has checked), so
 * like the compiled path it never throws on a record's values.
 */
export function interpretedTranscoder(template: Template, framing: AvroFraming = SINGLE_OBJECT): Transcoder {
  const plan = planFor(template);
  const scanRecord = interpretedScanner(template);
  const writer = framing === SINGLE_OBJECT ? (defaultWriter ??= flowRecordWriter(framing)) : flowRecordWriter(framing);
  const starts = new Int32Array(template.fields.length);
  const lengths = new Int32Array(template.fields.length);
  const typed = [...plan.sourceIndex, plan.time.flowStart?.index ?? -1, plan.time.flowEnd?.index ?? -1, plan.systemInitIndex].filter((i) => i >= 0);
  const { minLength, fixedLength } = layoutShape(template);
  return {
    plan, minLength, fixedLength,
    transcode(b, offset, end, msg, out) {
      const next = scanRecord(b, offset, end, starts, lengths);
      if (next < 0) return next;
      const values: FieldValue[] = new Array<FieldValue>(template.fields.length);
      for (const i of typed) values[i] = readValue(template.fields[i]!.ie.type, b, starts[i]!, lengths[i]!);
      const raw = (i: number) => b.subarray(starts[i], starts[i]! + lengths[i]!);
      const { key, value } = encodeFlowRecord(buildFlowRecord({ template, values }, raw, msg, plan), writer);
      out.reserve(key.length + value.length);
      out.keyStart = out.pos;
      out.keyEnd = out.keyStart + key.copy(out.buf, out.keyStart);
      out.valueEnd = out.keyEnd + value.copy(out.buf, out.keyEnd);
      out.pos = out.valueEnd;
      return next;
    },
  };
}


/**
 * The compiled transcoder of a template layout. `framing` chooses the Avro header: single-object by default, or
 * Confluent with the id the schema registry gave the FlowRecord schema. Compiling costs time linear in the field
 * count; the ingest service compiles a layout only once it has carried records (transcoder-cache.ts).
 */
export function compileTranscoder(template: Template, framing: AvroFraming = SINGLE_OBJECT): Transcoder {
  if (template.fields.length > MAX_COMPILED_FIELDS) return interpretedTranscoder(template, framing);
  const plan = planFor(template);
  // The single-object header holds the schema's fingerprint, which takes milliseconds to compute: once.
  const header = framing === SINGLE_OBJECT ? (singleObjectHeader ??= framingHeader(framing, FLOW_RECORD_SCHEMA)) : framingHeader(framing, FLOW_RECORD_SCHEMA);
  const write = compile(template, plan, header);
  const { scanRecord, minLength, fixedLength } = recordLayout(template);
  const starts = new Int32Array(template.fields.length);
  const lengths = new Int32Array(template.fields.length);
  return {
    plan, minLength, fixedLength,
    transcode(b, offset, end, msg, out) {
      const next = scanRecord(b, offset, end, starts, lengths);
      if (next >= 0) write(b, starts, lengths, next - offset, msg, out);
      return next;
    },
  };
}
