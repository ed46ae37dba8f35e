// NetFlow v9 Template and Options Template FlowSets (RFC 3954 §5.2, §6.1), decoded into the codec's
// Template model (fields as IPFIX elements, netflow-fields.ts), so that the template store, the record
// layouts and the transcoders are the IPFIX ones.
//
// Template FlowSet (id 0), records back to back:    Options Template FlowSet (id 1), records back to back:
//  | Template ID (> 255) | Field Count |              | Template ID (> 255) | Option Scope Length (bytes) |
//  | Field Type | Field Length | ... (Field Count)   | Option Length (bytes) | scope (type, length)... |
//                                                     | option (type, length)... |
// Either set may end in zero padding. v9 has no withdrawals and no enterprise bit: a type is 16 bits.
import { IPFIX_ERR, IpfixError, type IpfixErrorCode } from './errors.js';
import { u16 } from './message-header.js';
import { netflowFieldElement } from './netflow-fields.js';
import { MIN_DATA_SET_ID, type SetKind } from './set-header.js';
import { allZero } from './set-walk.js';
import type { TemplateSetContent } from './template-record.js';
import type { TemplateField } from './types.js';

export const NETFLOW_TEMPLATE_SET_ID = 0;
export const NETFLOW_OPTIONS_TEMPLATE_SET_ID = 1;

export function netflowSetKind(setId: number): SetKind {
  if (setId === NETFLOW_TEMPLATE_SET_ID) return 'template';
  if (setId === NETFLOW_OPTIONS_TEMPLATE_SET_ID) return 'optionsTemplate';
  return setId >= MIN_DATA_SET_ID ? 'data' : 'reserved';
}

function readFields(b: Uint8Array, p: number, count: number, scopeCount: number): TemplateField[] {
  const fields: TemplateField[] = new Array<TemplateField>(count);
  for (let i = 0; i < count; i++, p += 4) {
    const length = u16(b, p + 2);
    const scope = i < scopeCount;
    fields[i] = { ie: netflowFieldElement(u16(b, p), length, scope), length, scope };
  }
  return fields;
}

/** Why the template cannot be one, or undefined when it can. */
function problem(id: number, fields: readonly TemplateField[]): [code: IpfixErrorCode, message: string] | undefined {
  if (id < MIN_DATA_SET_ID) return [IPFIX_ERR.TEMPLATE_ID_RESERVED, `template id ${id} is reserved (template ids start at 256)`];
  if (fields.length === 0) return [IPFIX_ERR.NETFLOW_EMPTY_TEMPLATE, `NetFlow v9 template ${id} has no fields`];
  // Records of such a template take no bytes, so a data set could hold any number of them.
  if (fields.every((f) => f.length === 0)) return [IPFIX_ERR.BAD_FIELD_LENGTH, `template ${id}: every field has length 0`];
  return undefined;
}

function error(out: TemplateSetContent, code: IpfixErrorCode, message: string, at: { offset: number; setIndex: number; observationDomainId: number; templateId?: number }): void {
  out.errors.push(new IpfixError(code, message, at));
}

/** Decodes the records of a v9 (options) template FlowSet in b[start..end), the bytes after its header. */
export function decodeNetflowTemplateSet(b: Uint8Array, start: number, end: number, odid: number, options: boolean, setIndex: number): TemplateSetContent {
  const out: TemplateSetContent = { templates: [], withdrawals: [], errors: [] };
  const headerLength = options ? 6 : 4;
  for (let p = start; end - p >= headerLength; ) {
    const id = u16(b, p);
    // Template: a field count. Options template: the scope and option fields' lengths in bytes, 4 per field.
    const scopeBytes = options ? u16(b, p + 2) : 0;
    const optionBytes = options ? u16(b, p + 4) : u16(b, p + 2) * 4;
    if (id === 0 && scopeBytes + optionBytes === 0) {
      // Padding, or zeros where a record should be: either way nothing after it is a record (and looking for
      // one 4 bytes further each time would cost the square of the set's length).
      if (!allZero(b, p, end)) error(out, IPFIX_ERR.TEMPLATE_ID_RESERVED, 'a template record of zeros is followed by more bytes; the rest of the FlowSet is skipped', { offset: p, setIndex, observationDomainId: odid });
      break;
    }
    const fieldsEnd = p + headerLength + scopeBytes + optionBytes;
    if (scopeBytes % 4 !== 0 || optionBytes % 4 !== 0) {
      error(out, IPFIX_ERR.TRUNCATED_TEMPLATE, `options template ${id}: scope length ${scopeBytes} and option length ${optionBytes} must be multiples of 4 (a type and a length per field)`, { offset: p, setIndex, observationDomainId: odid, templateId: id });
      break;
    }
    if (fieldsEnd > end) {
      error(out, IPFIX_ERR.TRUNCATED_TEMPLATE, `template ${id} announces ${(scopeBytes + optionBytes) / 4} fields but its FlowSet ends after ${Math.max(0, Math.floor((end - p - headerLength) / 4))}`, { offset: p, setIndex, observationDomainId: odid, templateId: id });
      break;
    }
    const scopeCount = scopeBytes / 4;
    if (options && scopeCount === 0) {
      error(out, IPFIX_ERR.BAD_SCOPE_COUNT, `options template ${id} has no scope field`, { offset: p, setIndex, observationDomainId: odid, templateId: id });
    } else {
      const fields = readFields(b, p + headerLength, scopeCount + optionBytes / 4, scopeCount);
      const bad = problem(id, fields);
      if (bad !== undefined) error(out, bad[0], bad[1], { offset: p, setIndex, observationDomainId: odid, templateId: id });
      else out.templates.push(Object.freeze({ id, observationDomainId: odid, fields: Object.freeze(fields), scopeFieldCount: scopeCount }));
    }
    p = fieldsEnd;
  }
  return out;
}
