// The value model of the IPFIX codec: information elements, templates, decoded records and messages.
// How each abstract data type (RFC 7012 §3.1) is represented in JavaScript:
//   unsigned*/signed*            number; bigint only when the magnitude exceeds 2^53 - 1
//   float32/float64              number (a float64 sent in 4 bytes, reduced-size, is read as float32)
//   boolean                      boolean (wire 1 = true, 2 = false; anything else is a record error)
//   macAddress                   "00:0c:29:70:86:09"
//   string                       string (UTF-8)
//   octetArray, unknown elements Uint8Array (a copy, never a view of the message)
//   ipv4Address / ipv6Address    text ("10.0.0.1", RFC 5952 "2001:db8::1"); the encoder also takes the
//                                4 or 16 bytes in network order (as FlowRecords hold them), and 6 for a MAC
//   dateTimeSeconds              number, seconds since the Unix epoch
//   dateTimeMilliseconds         number, milliseconds since the Unix epoch
//   dateTimeMicroseconds         bigint, NANOseconds since the Unix epoch, rounded to whole microseconds
//   dateTimeNanoseconds          bigint, nanoseconds since the Unix epoch (from the NTP fraction, rounded)
//   basicList / subTemplateList / subTemplateMultiList: the RFC 6313 structures below.

import type { Utf8Bytes } from './utf8-bytes.js';

export type AbstractType =
  | 'octetArray' | 'unsigned8' | 'unsigned16' | 'unsigned32' | 'unsigned64'
  | 'signed8' | 'signed16' | 'signed32' | 'signed64' | 'float32' | 'float64' | 'boolean' | 'macAddress' | 'string'
  | 'dateTimeSeconds' | 'dateTimeMilliseconds' | 'dateTimeMicroseconds' | 'dateTimeNanoseconds'
  | 'ipv4Address' | 'ipv6Address' | 'basicList' | 'subTemplateList' | 'subTemplateMultiList';

/** A field length of 65535 in a template means "variable length" (RFC 7011 §7). */
export const VARIABLE_LENGTH = 65535;

export interface InfoElement {
  /** Private enterprise number; 0 for IANA elements, 29305 for RFC 5103 reverse elements. */
  readonly pen: number;
  readonly id: number;
  readonly name: string;
  readonly type: AbstractType;
  /** The natural (default) length; 65535 = variable. */
  readonly length: number;
}

export interface TemplateField {
  readonly ie: InfoElement;
  /** The length as in the template; 65535 = variable. */
  readonly length: number;
  /** True for the scope fields of an options template. */
  readonly scope: boolean;
}

export interface Template {
  readonly id: number;
  readonly observationDomainId: number;
  readonly fields: readonly TemplateField[];
  /** > 0 for an options template. */
  readonly scopeFieldCount: number;
}

/** RFC 6313 §4.5 structured-data semantics. */
export type ListSemantic = number;
export const LIST_SEMANTIC = { noneOf: 0, exactlyOneOf: 1, oneOrMoreOf: 2, allOf: 3, ordered: 4, undefined: 255 } as const;

export interface BasicList {
  readonly kind: 'basicList';
  readonly semantic: ListSemantic;
  readonly ie: InfoElement;
  /** The element length in the list header; 65535 = each element variable length. */
  readonly fieldLength: number;
  readonly values: FieldValue[];
}

export interface SubTemplateList {
  readonly kind: 'subTemplateList';
  readonly semantic: ListSemantic;
  readonly templateId: number;
  readonly records: DataRecord[];
  /** Present when the template was unknown: the undecoded content (kept, not dropped). */
  readonly undecoded?: Uint8Array;
}

export interface SubTemplateMultiListEntry {
  readonly templateId: number;
  readonly records: DataRecord[];
  readonly undecoded?: Uint8Array;
}

export interface SubTemplateMultiList {
  readonly kind: 'subTemplateMultiList';
  readonly semantic: ListSemantic;
  readonly entries: SubTemplateMultiListEntry[];
}

export type FieldValue = number | bigint | string | boolean | Uint8Array | BasicList | SubTemplateList | SubTemplateMultiList;

/** What the encoders take for a field: a FieldValue, or a string as UTF-8 bytes already held (Utf8Bytes). */
export type EncodableValue = FieldValue | Utf8Bytes;

export interface DataRecord {
  readonly template: Template;
  /** values[i] belongs to template.fields[i]; duplicate elements are all kept, in order. */
  readonly values: FieldValue[];
}

export interface MessageHeader {
  version: number;
  length: number;
  /** Seconds since the Unix epoch. */
  exportTime: number;
  sequenceNumber: number;
  observationDomainId: number;
}

export interface TemplateWithdrawal {
  observationDomainId: number;
  templateId: number | 'all';
}
