// One record of flows.processed as a row of the flow search, the flow view and the drops view's flows.
import type { FlowRecord } from '../../schemas/flow-record.js';
import type { FlowRow } from './api-types.js';
import { addressText, destinationAddress, EXTERNAL, type FlowFacts, sourceAddress } from './flow-facts.js';

const endText = (e: FlowFacts['source']) => (e.namespace === EXTERNAL ? e.pod : `${e.namespace}/${e.pod}`);

export function flowRow(r: FlowRecord, facts: FlowFacts, partition: number, offset: number): FlowRow {
  const snatAddress = addressText(r.proxySnatIPv4 ?? r.proxySnatIPv6);
  const d = facts.denial;
  return {
    partition,
    offset,
    time: facts.time,
    start: r.flowStartMilliseconds ?? facts.time,
    source: endText(facts.source),
    destination: endText(facts.destination),
    sourceAddress: sourceAddress(r),
    destinationAddress: destinationAddress(r),
    sourcePort: r.sourceTransportPort ?? 0,
    destinationPort: r.destinationTransportPort ?? 0,
    protocol: r.protocolIdentifier ?? 0,
    bytes: facts.bytes,
    packets: facts.packets,
    flowType: r.flowType ?? 0,
    sourceNode: typeof r.sourceNodeName === 'string' ? r.sourceNodeName : '',
    destinationNode: typeof r.destinationNodeName === 'string' ? r.destinationNodeName : '',
    service: facts.service,
    denial: d === undefined ? '' : `${d.direction} ${d.policy} ${d.rule} ${d.action}`,
    snat: snatAddress === '' || snatAddress === '0.0.0.0' || snatAddress === '::' ? '' : `${snatAddress.includes(':') ? `[${snatAddress}]` : snatAddress}:${r.proxySnatPort ?? 0}`,
  };
}
