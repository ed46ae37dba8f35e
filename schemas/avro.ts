// Avro framing for values on the log, so that a reader can always find the schema a value was written with:
//
//   single-object encoding (Avro spec "Single-object encoding"), the default:
//     C3 01 | CRC-64-AVRO (Rabin) fingerprint of the writer schema's Parsing Canonical Form, 8 bytes LE | Avro body
//   Confluent schema-registry framing, the option:
//     00 | schema id, 4 bytes BE | Avro body
//
// avsc 5.7.9 has neither the Rabin fingerprint nor the single-object header, so both are here. The reader side
// (AvroReader) keeps the writer schemas it knows by fingerprint and by Confluent id, and one cached resolver
// per writer schema, so a value written with an older or newer schema is decoded into the reader's shape.
import avro from 'avsc';
import { FlowaggError } from '../lib/errors.js';
// The log decides the framing (log.valueFormat); the readers and writers here apply it.
import type { AvroFraming } from '../lib/log/value-format.js';
import { SCHEMA_BAD_BODY, SCHEMA_BAD_FRAMING, SCHEMA_INCOMPATIBLE, SCHEMA_UNKNOWN_WRITER } from './errors.js';

export type AvroSchema = avro.Schema;
export type AvroType = avro.Type;

// ---- Parsing Canonical Form (Avro spec, "Transforming into Parsing Canonical Form") ----

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);
const NAMED = new Set(['record', 'error', 'enum', 'fixed']);

function fullName(name: string, namespace: string): string {
  return name.includes('.') || namespace === '' ? name : `${namespace}.${name}`;
}

function namespaceOf(fullname: string): string {
  const i = fullname.lastIndexOf('.');
  return i < 0 ? '' : fullname.slice(0, i);
}

/**
 * The Parsing Canonical Form of a schema given as JSON: full names, only the attributes that affect parsing
 * (name, type, fields, symbols, items, values, size) in that order, no whitespace. Reference names are
 * qualified with the enclosing namespace, as the spec's [FULLNAMES] rule requires.
 */
export function parsingCanonicalForm(schema: unknown, namespace = ''): string {
  if (typeof schema === 'string') return JSON.stringify(PRIMITIVES.has(schema) ? schema : fullName(schema, namespace));
  if (Array.isArray(schema)) return `[${schema.map((s) => parsingCanonicalForm(s, namespace)).join(',')}]`;
  if (schema === null || typeof schema !== 'object') throw new TypeError(`not an Avro schema: ${JSON.stringify(schema)}`);
  const s = schema as Record<string, unknown>;
  const type = s.type;
  if (typeof type !== 'string') return parsingCanonicalForm(type, namespace);
  if (PRIMITIVES.has(type)) return JSON.stringify(type);
  if (type === 'array') return `{"type":"array","items":${parsingCanonicalForm(s.items, namespace)}}`;
  if (type === 'map') return `{"type":"map","values":${parsingCanonicalForm(s.values, namespace)}}`;
  if (!NAMED.has(type)) return JSON.stringify(fullName(type, namespace));
  const name = fullName(String(s.name), typeof s.namespace === 'string' ? s.namespace : namespace);
  let out = `{"name":${JSON.stringify(name)},"type":${JSON.stringify(type)}`;
  if (type === 'record' || type === 'error') {
    const inner = namespaceOf(name);
    const fields = (s.fields as { name: string; type: unknown }[]).map(
      (f) => `{"name":${JSON.stringify(f.name)},"type":${parsingCanonicalForm(f.type, inner)}}`,
    );
    out += `,"fields":[${fields.join(',')}]`;
  } else if (type === 'enum') {
    out += `,"symbols":${JSON.stringify(s.symbols)}`;
  } else {
    out += `,"size":${Number(s.size)}`;
  }
  return `${out}}`;
}

// ---- CRC-64-AVRO (Rabin) fingerprint ----

const EMPTY = 0xc15d213aa4d7a795n;
const MASK64 = 0xffffffffffffffffn;
const RABIN_TABLE = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n) & MASK64);
  return fp;
});

/** CRC-64-AVRO of bytes, as the unsigned 64-bit value (Avro's published vectors are this as a signed long). */
export function rabinFingerprint(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const b of bytes) fp = (fp >> 8n) ^ RABIN_TABLE[Number((fp ^ BigInt(b)) & 0xffn)]!;
  return fp;
}

/** The 8-byte little-endian fingerprint of a schema's Parsing Canonical Form, as the single-object header carries it. */
export function schemaFingerprint(schema: unknown): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(rabinFingerprint(Buffer.from(parsingCanonicalForm(schema), 'utf8')));
  return out;
}

// ---- framing ----

export const SINGLE_OBJECT_MARKER = Buffer.from([0xc3, 0x01]);
const SINGLE_OBJECT_HEADER = 10;
const CONFLUENT_MAGIC = 0;
const CONFLUENT_HEADER = 5;

export { type AvroFraming };

/** The bytes that precede every Avro body written with `schema` under `framing`. */
export function framingHeader(framing: AvroFraming, schema: unknown): Buffer {
  if (framing.kind === 'single-object') return Buffer.concat([SINGLE_OBJECT_MARKER, schemaFingerprint(schema)]);
  const out = Buffer.alloc(CONFLUENT_HEADER);
  out[0] = CONFLUENT_MAGIC;
  out.writeUInt32BE(framing.schemaId, 1);
  return out;
}

/** Writes values of one schema with one framing. */
export class AvroWriter<T> {
  readonly header: Buffer;
  constructor(
    readonly type: AvroType,
    schema: unknown,
    framing: AvroFraming = { kind: 'single-object' },
  ) {
    this.header = framingHeader(framing, schema);
  }

  encode(value: T): Buffer {
    return Buffer.concat([this.header, this.type.toBuffer(value)]);
  }
}

interface Writer {
  readonly type: AvroType;
  /** undefined when the writer schema is the reader's own: no resolution needed. */
  readonly resolver: unknown;
}

/**
 * Decodes framed values into the reader schema's shape. Writer schemas must be registered first (the reader's
 * own schema is); single-object and Confluent framing are told apart by their first byte.
 */
export class AvroReader<T> {
  private readonly byFingerprint = new Map<bigint, Writer>();
  private readonly byConfluentId = new Map<number, Writer>();

  constructor(
    readonly type: AvroType,
    schema: unknown,
    confluentId?: number,
  ) {
    this.register(schema, confluentId);
  }

  /** Makes values written with `schema` readable; throws SCHEMA_INCOMPATIBLE when the reader cannot resolve it. */
  register(schema: unknown, confluentId?: number): void {
    const fingerprint = schemaFingerprint(schema).readBigUInt64LE(0);
    let writer = this.byFingerprint.get(fingerprint);
    if (writer === undefined) {
      const writerType = avro.Type.forSchema(schema as AvroSchema);
      let resolver: unknown;
      if (!writerType.equals(this.type)) {
        try {
          resolver = this.type.createResolver(writerType);
        } catch (cause) {
          throw new FlowaggError(SCHEMA_INCOMPATIBLE, `cannot read values written with schema ${writerType.name ?? ''} (fingerprint ${fingerprint}): ${String(cause)}`, {
            context: { fingerprint },
            cause,
          });
        }
      }
      writer = { type: writerType, resolver };
      this.byFingerprint.set(fingerprint, writer);
    }
    if (confluentId !== undefined) this.byConfluentId.set(confluentId, writer);
  }

  decode(buf: Buffer): T {
    let writer: Writer | undefined;
    let offset: number;
    if (buf.length >= SINGLE_OBJECT_HEADER && buf[0] === SINGLE_OBJECT_MARKER[0] && buf[1] === SINGLE_OBJECT_MARKER[1]) {
      const fingerprint = buf.readBigUInt64LE(2);
      writer = this.byFingerprint.get(fingerprint);
      if (writer === undefined) throw new FlowaggError(SCHEMA_UNKNOWN_WRITER, `unknown writer schema fingerprint ${fingerprint.toString(16)}`, { context: { fingerprint } });
      offset = SINGLE_OBJECT_HEADER;
    } else if (buf.length >= CONFLUENT_HEADER && buf[0] === CONFLUENT_MAGIC) {
      const id = buf.readUInt32BE(1);
      writer = this.byConfluentId.get(id);
      if (writer === undefined) throw new FlowaggError(SCHEMA_UNKNOWN_WRITER, `unknown Confluent schema id ${id}`, { context: { schemaId: id } });
      offset = CONFLUENT_HEADER;
    } else {
      throw new FlowaggError(SCHEMA_BAD_FRAMING, `not a framed Avro value: starts with ${buf.subarray(0, 2).toString('hex')}, length ${buf.length}`);
    }
    let decoded: { value: unknown; offset: number };
    try {
      decoded = this.type.decode(buf, offset, writer.resolver as avro.Resolver | undefined);
    } catch (cause) {
      throw new FlowaggError(SCHEMA_BAD_BODY, `invalid Avro body: ${String(cause)}`, { cause });
    }
    if (decoded.offset !== buf.length) {
      throw new FlowaggError(SCHEMA_BAD_BODY, decoded.offset < 0 ? 'Avro body truncated' : `${buf.length - decoded.offset} trailing bytes after the Avro body`, {
        context: { offset: decoded.offset },
      });
    }
    return decoded.value as T;
  }
}
