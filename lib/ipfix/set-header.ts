// Set Header (RFC 7011 §3.3.2):
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |          Set ID               |          Length               |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Set ID 2 = Template Set, 3 = Options Template Set, 256..65535 = Data Set of that template;
// 0, 1 (NetFlow v9) and 4..255 are reserved. Length counts the header, the records and any padding.
export const SET_HEADER_LENGTH = 4;
export const TEMPLATE_SET_ID = 2;
export const OPTIONS_TEMPLATE_SET_ID = 3;
export const MIN_DATA_SET_ID = 256;

export type SetKind = 'template' | 'optionsTemplate' | 'data' | 'reserved';

export function setKind(setId: number): SetKind {
  if (setId === TEMPLATE_SET_ID) return 'template';
  if (setId === OPTIONS_TEMPLATE_SET_ID) return 'optionsTemplate';
  return setId >= MIN_DATA_SET_ID ? 'data' : 'reserved';
}
