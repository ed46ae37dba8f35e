// Error codes of the IPFIX codec (which reads NetFlow v9 and v5 too: the set- and record-level codes apply
// to v9 FlowSets as well). Every problem found in input is an IpfixError whose context locates
// it: `offset` is the byte offset in the message, plus the observation domain, template id and set index
// when they are known. Message-level problems are thrown by decodeMessage; set- and record-level problems
// are collected in DecodedMessage.errors while the rest of the message is still decoded.
import { FlowaggError } from '../errors.js';

export const IPFIX_ERR = {
  /** Fewer than 16 bytes: no message header. */
  TRUNCATED_HEADER: 'FLOWAGG_ERR_IPFIX_TRUNCATED_HEADER',
  /** Version field is not 10. */
  BAD_VERSION: 'FLOWAGG_ERR_IPFIX_BAD_VERSION',
  /** Header length field disagrees with the bytes available (or is below 16). */
  LENGTH_MISMATCH: 'FLOWAGG_ERR_IPFIX_LENGTH_MISMATCH',
  /** A set header announces more bytes than the message has left. */
  SET_OVERRUNS_MESSAGE: 'FLOWAGG_ERR_IPFIX_SET_OVERRUNS_MESSAGE',
  /** A set length below 4 (a zero-length set would never advance), or a set header cut off. */
  SHORT_SET: 'FLOWAGG_ERR_IPFIX_SHORT_SET',
  /** Set id 0, 1 or 4..255: reserved (0 and 1 are NetFlow v9's). */
  RESERVED_SET_ID: 'FLOWAGG_ERR_IPFIX_RESERVED_SET_ID',
  /** A data set for a template this session and domain does not know. */
  UNKNOWN_TEMPLATE: 'FLOWAGG_ERR_IPFIX_UNKNOWN_TEMPLATE',
  /** Template id below 256 in a template record. */
  TEMPLATE_ID_RESERVED: 'FLOWAGG_ERR_IPFIX_TEMPLATE_ID_RESERVED',
  /** A template record cut off by the end of its set. */
  TRUNCATED_TEMPLATE: 'FLOWAGG_ERR_IPFIX_TRUNCATED_TEMPLATE',
  /** An options template whose scope field count is 0 or exceeds its field count. */
  BAD_SCOPE_COUNT: 'FLOWAGG_ERR_IPFIX_BAD_SCOPE_COUNT',
  /** A withdrawal that is not allowed (options template id in a template set, withdrawal over UDP is ignored silently). */
  BAD_WITHDRAWAL: 'FLOWAGG_ERR_IPFIX_BAD_WITHDRAWAL',
  /**
   * A data set that is not a whole number of its template's records plus zero padding: sent with another layout
   * than the template known here (a redefinition not seen yet), or corrupt. The whole set is skipped.
   */
  LAYOUT_MISMATCH: 'FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH',
  /** A data record cut off by the end of its set (fixed part or a variable-length field). */
  TRUNCATED_RECORD: 'FLOWAGG_ERR_IPFIX_TRUNCATED_RECORD',
  /** A field length that its abstract type cannot have (ipv4Address in 3 bytes, unsigned32 in 5). */
  BAD_FIELD_LENGTH: 'FLOWAGG_ERR_IPFIX_BAD_FIELD_LENGTH',
  /** A boolean other than 1 (true) or 2 (false). */
  BAD_BOOLEAN: 'FLOWAGG_ERR_IPFIX_BAD_BOOLEAN',
  /** An RFC 6313 list that is malformed or nested deeper than the decoder allows. */
  BAD_LIST: 'FLOWAGG_ERR_IPFIX_BAD_LIST',
  /** Encoder: a value that does not fit its field (type or range). */
  BAD_VALUE: 'FLOWAGG_ERR_IPFIX_BAD_VALUE',
  /** Encoder: one record or template larger than the maximum message size. */
  RECORD_TOO_LARGE: 'FLOWAGG_ERR_IPFIX_RECORD_TOO_LARGE',
  /** A NetFlow v5 or v9 packet shorter than its header (24 or 20 bytes). */
  NETFLOW_TRUNCATED_HEADER: 'FLOWAGG_ERR_NETFLOW_TRUNCATED_HEADER',
  /** A NetFlow v5 packet whose record count is 0, above 30, or more than its bytes hold. */
  NETFLOW_BAD_COUNT: 'FLOWAGG_ERR_NETFLOW_BAD_COUNT',
  /** A NetFlow v9 template record with no fields (v9 has no withdrawals). */
  NETFLOW_EMPTY_TEMPLATE: 'FLOWAGG_ERR_NETFLOW_EMPTY_TEMPLATE',
  /** Registry: no element by that name. */
  UNKNOWN_ELEMENT: 'FLOWAGG_ERR_IPFIX_UNKNOWN_ELEMENT',
} as const;

export type IpfixErrorCode = (typeof IPFIX_ERR)[keyof typeof IPFIX_ERR];

export interface IpfixErrorContext {
  /** Byte offset in the message where the problem is. */
  offset?: number;
  observationDomainId?: number;
  templateId?: number;
  /** 0-based index of the set in the message. */
  setIndex?: number;
  [k: string]: string | number | bigint | boolean | undefined;
}

export class IpfixError extends FlowaggError<IpfixErrorCode> {
  declare readonly context: Readonly<IpfixErrorContext>;
  constructor(code: IpfixErrorCode, message: string, context: IpfixErrorContext = {}) {
    super(code, message, { context });
    this.name = 'IpfixError';
  }
}

export function isIpfixError(err: unknown): err is IpfixError {
  return err instanceof IpfixError;
}
