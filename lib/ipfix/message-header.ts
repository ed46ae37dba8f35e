// IPFIX Message Header (RFC 7011 §3.1):
//
//   0                   1                   2                   3
//   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |       Version Number          |            Length             |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |                           Export Time                         |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |                       Sequence Number                         |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  |                    Observation Domain ID                      |
//  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Version is 10; Length counts the whole message, header included.
import { IPFIX_ERR, IpfixError } from './errors.js';
import type { MessageHeader } from './types.js';

export const IPFIX_VERSION = 10;
export const MESSAGE_HEADER_LENGTH = 16;
export const MAX_MESSAGE_LENGTH = 65535;

export function u16(b: Uint8Array, p: number): number {
  return ((b[p] as number) << 8) | (b[p + 1] as number);
}

export function u32(b: Uint8Array, p: number): number {
  return (b[p] as number) * 0x1000000 + (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
}

export function putU16(b: Uint8Array, p: number, v: number): void {
  b[p] = v >>> 8;
  b[p + 1] = v & 0xff;
}

export function putU32(b: Uint8Array, p: number, v: number): void {
  b[p] = v >>> 24;
  b[p + 1] = (v >>> 16) & 0xff;
  b[p + 2] = (v >>> 8) & 0xff;
  b[p + 3] = v & 0xff;
}

/**
 * Reads and checks the header of the message at the start of `b`. Throws IpfixError for a short buffer,
 * a version other than 10, or a length field that is below 16 or beyond the bytes available.
 */
export function readMessageHeader(b: Uint8Array): MessageHeader {
  if (b.length < MESSAGE_HEADER_LENGTH) {
    throw new IpfixError(IPFIX_ERR.TRUNCATED_HEADER, `message of ${b.length} bytes is shorter than the 16-byte IPFIX header`, { offset: 0 });
  }
  const version = u16(b, 0);
  if (version !== IPFIX_VERSION) {
    throw new IpfixError(IPFIX_ERR.BAD_VERSION, `version ${version} is not IPFIX (10)${version === 9 ? ': NetFlow v9 is not accepted here' : ''}`, { offset: 0 });
  }
  const header: MessageHeader = { version, length: u16(b, 2), exportTime: u32(b, 4), sequenceNumber: u32(b, 8), observationDomainId: u32(b, 12) };
  if (header.length < MESSAGE_HEADER_LENGTH || header.length > b.length) {
    throw new IpfixError(
      IPFIX_ERR.LENGTH_MISMATCH,
      header.length < MESSAGE_HEADER_LENGTH
        ? `message length field ${header.length} is below the 16-byte header`
        : `message length field says ${header.length} bytes but only ${b.length} are available (truncated message)`,
      { offset: 2, observationDomainId: header.observationDomainId },
    );
  }
  return header;
}

export function writeMessageHeader(b: Uint8Array, p: number, h: Omit<MessageHeader, 'version'>): void {
  putU16(b, p, IPFIX_VERSION);
  putU16(b, p + 2, h.length);
  putU32(b, p + 4, h.exportTime >>> 0);
  putU32(b, p + 8, h.sequenceNumber >>> 0);
  putU32(b, p + 12, h.observationDomainId >>> 0);
}
