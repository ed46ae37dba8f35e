// Structured data (RFC 6313): basicList, subTemplateList, subTemplateMultiList, decoded into nested
// values. Their content is what a (usually variable-length) field holds:
//
// basicList (§4.5.1)                         subTemplateList (§4.5.2)
//  0                   1                   2                   3
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |   Semantic    |E| Field ID (15 bits)        | Element Length |..   | Semantic | Template ID (16) | records...
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// | Enterprise Number (only when E = 1)  | values (fixed or varlen) ...
//
// subTemplateMultiList (§4.5.3): Semantic, then entries of
//   | Template ID (16) | Data Records Length (16, includes these 4 bytes) | records... |
//
// Nesting is bounded by DecodeContext.maxDepth; every count derives from bytes actually present.
import { lookupElement } from './registry.js';
import { copyBytes, readValue } from './field-codec.js';
import { IPFIX_ERR, IpfixError } from './errors.js';
import { u16, u32 } from './message-header.js';
import { type DecodeContext, recordDecoder } from './record-decoder.js';
import {
  type BasicList, type DataRecord, type FieldValue, type SubTemplateList, type SubTemplateMultiList, type SubTemplateMultiListEntry,
  VARIABLE_LENGTH,
} from './types.js';
import { type VarlenSpan, readVarlenHeader } from './varlen.js';

function badList(message: string, offset: number): IpfixError {
  return new IpfixError(IPFIX_ERR.BAD_LIST, message, { offset });
}

function enter(cx: DecodeContext, p: number): void {
  if (cx.depth >= cx.maxDepth) throw badList(`lists nested deeper than ${cx.maxDepth} levels`, p);
  cx.depth++;
}

function listValue(type: string, b: Uint8Array, p: number, len: number, cx: DecodeContext): FieldValue {
  switch (type) {
    case 'basicList': return decodeBasicList(b, p, len, cx);
    case 'subTemplateList': return decodeSubTemplateList(b, p, len, cx);
    case 'subTemplateMultiList': return decodeSubTemplateMultiList(b, p, len, cx);
    default: throw badList(`${type} is not a list type`, p);
  }
}

export function decodeBasicList(b: Uint8Array, p: number, len: number, cx: DecodeContext): BasicList {
  if (len < 5) throw badList(`basicList of ${len} bytes is shorter than its 5-byte header`, p);
  enter(cx, p);
  try {
    const end = p + len;
    const semantic = b[p] as number;
    const rawId = u16(b, p + 1);
    const fieldLength = u16(b, p + 3);
    let q = p + 5;
    let pen = 0;
    if (rawId & 0x8000) {
      if (len < 9) throw badList('basicList is cut off in its enterprise number', p);
      pen = u32(b, q);
      q += 4;
    }
    const ie = lookupElement(pen, rawId & 0x7fff);
    const isList = ie.type === 'basicList' || ie.type === 'subTemplateList' || ie.type === 'subTemplateMultiList';
    const read = (at: number, n: number) => (isList ? listValue(ie.type, b, at, n, cx) : readValue(ie.type, b, at, n));
    const values: FieldValue[] = [];
    if (fieldLength === VARIABLE_LENGTH) {
      const span: VarlenSpan = { start: 0, length: 0 };
      while (q < end) {
        if (!readVarlenHeader(b, q, end, span)) throw badList(`basicList of ${ie.name}: element cut off`, q);
        values.push(read(span.start, span.length));
        q = span.start + span.length;
      }
    } else {
      const content = end - q;
      if (fieldLength === 0 ? content !== 0 : content % fieldLength !== 0) {
        throw badList(`basicList of ${ie.name}: ${content} bytes are not a whole number of ${fieldLength}-byte elements`, q);
      }
      for (; q < end; q += fieldLength) values.push(read(q, fieldLength));
    }
    return { kind: 'basicList', semantic, ie, fieldLength, values };
  } finally {
    cx.depth--;
  }
}

/** Decodes records of template `templateId` filling b[p..end) exactly; undefined when the template is unknown. */
function decodeRecords(b: Uint8Array, p: number, end: number, templateId: number, cx: DecodeContext): DataRecord[] | undefined {
  const template = cx.store?.get(cx.observationDomainId, templateId);
  if (template === undefined) return undefined;
  const decoder = recordDecoder(template, cx.compileNow);
  const records: DataRecord[] = [];
  while (end - p >= decoder.layout.minLength && p < end) {
    const rec = decoder.decode(b, p, end, cx);
    if (rec === undefined) throw badList(`record of template ${templateId} in a list is cut off`, p);
    records.push(rec);
    p = cx.next;
  }
  if (p < end && b.subarray(p, end).some((x) => x !== 0)) throw badList(`${end - p} stray bytes after the records of template ${templateId} in a list`, p);
  return records;
}

export function decodeSubTemplateList(b: Uint8Array, p: number, len: number, cx: DecodeContext): SubTemplateList {
  if (len < 3) throw badList(`subTemplateList of ${len} bytes is shorter than its 3-byte header`, p);
  enter(cx, p);
  try {
    const semantic = b[p] as number;
    const templateId = u16(b, p + 1);
    const records = decodeRecords(b, p + 3, p + len, templateId, cx);
    return records === undefined
      ? { kind: 'subTemplateList', semantic, templateId, records: [], undecoded: copyBytes(b, p + 3, len - 3) }
      : { kind: 'subTemplateList', semantic, templateId, records };
  } finally {
    cx.depth--;
  }
}

export function decodeSubTemplateMultiList(b: Uint8Array, p: number, len: number, cx: DecodeContext): SubTemplateMultiList {
  if (len < 1) throw badList('subTemplateMultiList of 0 bytes has no semantic', p);
  enter(cx, p);
  try {
    const end = p + len;
    const semantic = b[p] as number;
    const entries: SubTemplateMultiListEntry[] = [];
    let q = p + 1;
    while (q < end) {
      if (end - q < 4) throw badList('subTemplateMultiList entry header is cut off', q);
      const templateId = u16(b, q);
      const entryLength = u16(b, q + 2);
      if (entryLength < 4 || q + entryLength > end) throw badList(`subTemplateMultiList entry length ${entryLength} does not fit its list`, q);
      const records = decodeRecords(b, q + 4, q + entryLength, templateId, cx);
      entries.push(records === undefined ? { templateId, records: [], undecoded: copyBytes(b, q + 4, entryLength - 4) } : { templateId, records });
      q += entryLength;
    }
    return { kind: 'subTemplateMultiList', semantic, entries };
  } finally {
    cx.depth--;
  }
}
