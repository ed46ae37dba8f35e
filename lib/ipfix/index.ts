// The IPFIX codec (RFC 7011, RFC 6313, RFC 5103 reverse elements): decoding, compiled record layouts
// for transcoders, and encoding; it reads NetFlow v9 (RFC 3954) and v5 packets too, as IPFIX elements. See
// types.ts for how each abstract data type is represented.
export * from './types.js';
export { IPFIX_ERR, IpfixError, isIpfixError, type IpfixErrorCode, type IpfixErrorContext } from './errors.js';
export { TemplateStore, type TemplateStoreOptions, type Transport, sameLayout } from './template-store.js';
export { TemplatePool, type TemplatePoolLimits, type EvictionReason } from './template-pool.js';
export { decodeMessage, scanMessage, type DataSetVisitor, type DecodedMessage, type DecodeOptions, type ScannedMessage } from './decode-message.js';
export { recordLayout, type RecordLayout, type ScanRecord } from './record-layout.js';
export { recordDecoder, decodeFieldValue, type DecodeContext, type RecordDecoder } from './record-decoder.js';
export { readValue, writeValue, validFieldLength, NTP_UNIX_OFFSET } from './field-codec.js';
export { MESSAGE_HEADER_LENGTH, MAX_MESSAGE_LENGTH, IPFIX_VERSION, readMessageHeader } from './message-header.js';
export { decodeUtf8, formatIpv4, formatIpv6, formatMac, toHex } from './text.js';
export { MessageEncoder, type MessageEncoderOptions } from './message-encoder.js';
export { recordEncoder, type EncodeRecord } from './record-encoder.js';
export { templateRecordLength, writeTemplateRecord } from './template-record.js';
export { decodeNetflow, packetVersion, scanNetflowV5, scanNetflowV9, type ScannedNetflow } from './netflow-message.js';
export { type NetflowHeader, NETFLOW_V5_VERSION, NETFLOW_V9_VERSION } from './netflow-header.js';
export { netflowFieldElement } from './netflow-fields.js';
