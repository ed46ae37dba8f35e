// The NetFlow v5 flow record: 48 bytes in a fixed layout, described here as a template of IANA elements so
// that v5 records take the same record layout and FlowRecord transcoder as IPFIX and v9 ones. first/last are
// ms of sysUpTime (flowStart/EndSysUpTime); the pads are paddingOctets, which carry nothing.
import { findElement } from './registry.js';
import type { Template } from './types.js';

export const NETFLOW_V5_RECORD_LENGTH = 48;
export const NETFLOW_V5_MAX_COUNT = 30;
/** v5 has no templates; its records carry this id in FlowRecords. */
export const NETFLOW_V5_TEMPLATE_ID = 0;

const LAYOUT: readonly (readonly [id: number, length: number])[] = [
  [8, 4], // srcaddr: sourceIPv4Address
  [12, 4], // dstaddr: destinationIPv4Address
  [15, 4], // nexthop: ipNextHopIPv4Address
  [10, 2], // input: ingressInterface (SNMP index)
  [14, 2], // output: egressInterface
  [2, 4], // dPkts: packetDeltaCount
  [1, 4], // dOctets: octetDeltaCount
  [22, 4], // first: flowStartSysUpTime
  [21, 4], // last: flowEndSysUpTime
  [7, 2], // srcport: sourceTransportPort
  [11, 2], // dstport: destinationTransportPort
  [210, 1], // pad1: paddingOctets
  [6, 1], // tcp_flags: tcpControlBits
  [4, 1], // prot: protocolIdentifier
  [5, 1], // tos: ipClassOfService
  [16, 2], // src_as: bgpSourceAsNumber
  [17, 2], // dst_as: bgpDestinationAsNumber
  [9, 1], // src_mask: sourceIPv4PrefixLength
  [13, 1], // dst_mask: destinationIPv4PrefixLength
  [210, 2], // pad2: paddingOctets
];

/** One object for every v5 packet, so that one compiled transcoder serves every v5 exporter. */
export const NETFLOW_V5_TEMPLATE: Template = Object.freeze({
  id: NETFLOW_V5_TEMPLATE_ID,
  observationDomainId: 0,
  fields: Object.freeze(LAYOUT.map(([id, length]) => Object.freeze({ ie: findElement(0, id)!, length, scope: false }))),
  scopeFieldCount: 0,
});
