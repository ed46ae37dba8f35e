// Error codes of capture reading (pcap, pcapng and RFC 5655 IPFIX files).
import { FlowaggError } from '../errors.js';

export const CAPTURE_ERR = {
  /** The file starts with none of the known magic numbers. */
  UNKNOWN_FORMAT: 'FLOWAGG_ERR_CAPTURE_UNKNOWN_FORMAT',
  /** A header or block is cut off by the end of the file. */
  TRUNCATED: 'FLOWAGG_ERR_CAPTURE_TRUNCATED',
  /** A structure that cannot be right (block length below its minimum, unknown byte order...). */
  MALFORMED: 'FLOWAGG_ERR_CAPTURE_MALFORMED',
} as const;

export type CaptureErrorCode = (typeof CAPTURE_ERR)[keyof typeof CAPTURE_ERR];

export class CaptureError extends FlowaggError<CaptureErrorCode> {
  constructor(code: CaptureErrorCode, message: string, context: { offset: number; [k: string]: string | number | undefined }) {
    super(code, message, { context });
    this.name = 'CaptureError';
  }
}
