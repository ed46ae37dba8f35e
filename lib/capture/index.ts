// Reading captures: pcap, pcapng and RFC 5655 IPFIX files, down to the IPFIX messages they carry.
export { CAPTURE_ERR, CaptureError, type CaptureErrorCode } from './errors.js';
export { FileReader } from './file-reader.js';
export { capturedMessages, type CapturedMessage } from './messages.js';
export { LINKTYPE, udpOf, type PacketResult, type UdpDatagram } from './packet.js';
export { detectKind, readPcap, readPcapng, type CaptureKind, type Frame } from './pcap.js';
