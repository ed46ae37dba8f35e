// Template Record and Options Template Record (RFC 7011 §3.4.1, §3.4.2), and their withdrawals (§8.1).
//
// Template Record Header                    Options Template Record Header
//  0                   1                     0                   1
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 ...      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 ...
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+         +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// | Template ID (> 255)           |         | Template ID (> 255)           |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+         +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// | Field Count                   |         | Field Count                   |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+         +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//                                           | Scope Field Count (> 0)       |
//                                           +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// followed by Field Count Field Specifiers (§3.2), the scope fields first:
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |E|  Information Element ident. |        Field Length           |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |                      Enterprise Number  (only when E = 1)     |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// A record with Field Count 0 (and no scope count) withdraws the template; Template ID = Set ID (2 or 3)
// withdraws all templates of that kind in the domain.
import { lookupElement } from './registry.js';
import { validFieldLength } from './field-codec.js';
import { IPFIX_ERR, IpfixError } from './errors.js';
import { putU16, putU32, u16, u32 } from './message-header.js';
import { MIN_DATA_SET_ID, OPTIONS_TEMPLATE_SET_ID, TEMPLATE_SET_ID } from './set-header.js';
import { allZero } from './set-walk.js';
import type { Template, TemplateField } from './types.js';

export interface TemplateSetContent {
  templates: Template[];
  withdrawals: (number | 'all')[];
  errors: IpfixError[];
}

/** Decodes the records of a (options) template set in b[start..end), the bytes after the set header. */
export function decodeTemplateSet(
  b: Uint8Array, start: number, end: number, observationDomainId: number, options: boolean, setIndex: number,
): TemplateSetContent {
  const out: TemplateSetContent = { templates: [], withdrawals: [], errors: [] };
  const setId = options ? OPTIONS_TEMPLATE_SET_ID : TEMPLATE_SET_ID;
  let p = start;
  while (end - p >= 4) {
    const recordStart = p;
    const templateId = u16(b, p);
    const fieldCount = u16(b, p + 2);
    const ctx = { offset: recordStart, observationDomainId, templateId, setIndex };
    if (fieldCount === 0) {
      p += 4;
      if (templateId === setId) out.withdrawals.push('all');
      else if (templateId >= MIN_DATA_SET_ID) out.withdrawals.push(templateId);
      else if (allZero(b, recordStart, end)) break; // padding at the end of the set
      else out.errors.push(new IpfixError(IPFIX_ERR.BAD_WITHDRAWAL, `withdrawal of template id ${templateId}, which is neither a template id (≥ 256) nor the set id ${setId}`, ctx));
      continue;
    }
    let scopeFieldCount = 0;
    p += 4;
    if (options) {
      if (end - p < 2) {
        out.errors.push(new IpfixError(IPFIX_ERR.TRUNCATED_TEMPLATE, `options template ${templateId} is cut off before its scope field count`, ctx));
        break;
      }
      scopeFieldCount = u16(b, p);
      p += 2;
    }
    const fields: TemplateField[] = [];
    let badLength: string | undefined;
    for (let i = 0; i < fieldCount; i++) {
      if (end - p < 4) break;
      const rawId = u16(b, p);
      const length = u16(b, p + 2);
      let pen = 0;
      p += 4;
      if (rawId & 0x8000) {
        if (end - p < 4) {
          p = end + 1; // marks the record as cut off
          break;
        }
        pen = u32(b, p);
        p += 4;
      }
      const ie = lookupElement(pen, rawId & 0x7fff);
      if (badLength === undefined && !validFieldLength(ie.type, length)) badLength = `${ie.name} (${ie.type}) cannot have length ${length}`;
      fields.push({ ie, length, scope: i < scopeFieldCount });
    }
    if (fields.length < fieldCount || p > end) {
      out.errors.push(new IpfixError(IPFIX_ERR.TRUNCATED_TEMPLATE, `template ${templateId} announces ${fieldCount} fields but its set ends after ${fields.length}`, ctx));
      break;
    }
    if (templateId < MIN_DATA_SET_ID) {
      out.errors.push(new IpfixError(IPFIX_ERR.TEMPLATE_ID_RESERVED, `template id ${templateId} is reserved (template ids start at 256)`, ctx));
    } else if (options && (scopeFieldCount === 0 || scopeFieldCount > fieldCount)) {
      out.errors.push(new IpfixError(IPFIX_ERR.BAD_SCOPE_COUNT, `options template ${templateId} has scope field count ${scopeFieldCount} of ${fieldCount} fields`, ctx));
    } else if (badLength !== undefined) {
      out.errors.push(new IpfixError(IPFIX_ERR.BAD_FIELD_LENGTH, `template ${templateId}: ${badLength}`, ctx));
    } else if (fields.every((f) => f.length === 0)) {
      // Records of such a template take no bytes, so a data set could hold any number of them.
      out.errors.push(new IpfixError(IPFIX_ERR.BAD_FIELD_LENGTH, `template ${templateId}: every field has length 0`, ctx));
    } else {
      out.templates.push(Object.freeze({ id: templateId, observationDomainId, fields: Object.freeze(fields), scopeFieldCount }));
    }
  }
  return out;
}

/**
 * Where the (options) template record or withdrawal at b[p] ends, from its field count and specifiers alone,
 * or -1 when it runs past `end`. Its contents are not checked: decodeTemplateSet does that.
 */
export function templateRecordEnd(b: Uint8Array, p: number, end: number, options: boolean): number {
  const fieldCount = u16(b, p + 2);
  let q = p + (options && fieldCount > 0 ? 6 : 4);
  for (let i = 0; i < fieldCount; i++) {
    if (end - q < 4) return -1;
    q += u16(b, q) & 0x8000 ? 8 : 4;
  }
  return q <= end ? q : -1;
}

/** Bytes the template record takes on the wire. */
export function templateRecordLength(t: Template): number {
  let n = t.scopeFieldCount > 0 ? 6 : 4;
  for (const f of t.fields) n += f.ie.pen === 0 ? 4 : 8;
  return n;
}

/** Writes the (options) template record at b[p]; returns the position after it. */
export function writeTemplateRecord(b: Uint8Array, p: number, t: Template): number {
  putU16(b, p, t.id);
  putU16(b, p + 2, t.fields.length);
  p += 4;
  if (t.scopeFieldCount > 0) {
    putU16(b, p, t.scopeFieldCount);
    p += 2;
  }
  for (const f of t.fields) {
    putU16(b, p, f.ie.pen === 0 ? f.ie.id : f.ie.id | 0x8000);
    putU16(b, p + 2, f.length);
    p += 4;
    if (f.ie.pen !== 0) {
      putU32(b, p, f.ie.pen);
      p += 4;
    }
  }
  return p;
}

