// The same flows, once as an Antrea Agent sends them over IPFIX (its 43-element template, here with the UUID
// elements of the UIDs the flows carry) and once over gRPC, give identical FlowRecords and flow keys except
// provenance, so that the processor cannot tell the transports apart. The IPFIX values are written out by
// hand from the flows, element by element, as the Agent's IPFIX exporter fills its template: independent of
// the gRPC mapping table under test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import type { FieldValue } from '../../lib/ipfix/types.js';
import { ANTREA_AGENT_FIELDS } from '../../lib/ipfix/testing/templates.js';
import { type FlowRecord, flowRecordReader } from '../../schemas/flow-record.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { contextFor, encodeRecord, templateOf } from '../records/testing/records.js';
import { compileTranscoder } from '../records/transcode.js';
import { FlowFields, readFlow } from '../../schemas/antrea-flow-fields.js';
import { FlowTranscoder } from './flow-transcode.js';
import { agentFlow, encodeFlow, type FlowObject } from './testing/flows.js';

const UUIDS = ['sourcePodUUID', 'sourceNodeUUID', 'ingressNetworkPolicyUUID'] as const;
const PROVENANCE = ['exporterAddress', 'exporterPort', 'transport', 'observationDomainId', 'exportTime', 'sequenceNumber', 'templateId', 'receiveTime'];

function agentTemplate(v6: boolean) {
  const names = ANTREA_AGENT_FIELDS.map((n) => (v6 ? n.replace('IPv4', 'IPv6') : n));
  return templateOf(256, [...names, ...UUIDS], 0x5eed);
}

/** What the Agent's IPFIX exporter writes for a flow, element by element. */
function ipfixValues(flow: FlowObject, v6: boolean): Record<string, FieldValue | Uint8Array> {
  const f = flow as Record<string, Record<string, unknown>>;
  const [ip, tr, k, st, rs] = [f.ip!, f.transport!, f.k8s!, f.stats!, f.reverse_stats!];
  const zero = Buffer.alloc(v6 ? 16 : 4);
  const uuid = (text: unknown) => Buffer.from(String(text).replaceAll('-', ''), 'hex');
  const family = v6 ? 'IPv6' : 'IPv4';
  return {
    flowStartSeconds: (f.start_ts as { seconds: number }).seconds, flowEndSeconds: (f.end_ts as { seconds: number }).seconds,
    flowEndReason: flow.end_reason as number, sourceTransportPort: tr.source_port as number, destinationTransportPort: tr.destination_port as number,
    protocolIdentifier: tr.protocol_number as number, packetTotalCount: st.packet_total_count as number, octetTotalCount: st.octet_total_count as number,
    packetDeltaCount: st.packet_delta_count as number, octetDeltaCount: st.octet_delta_count as number,
    [`source${family}Address`]: ip.source as Buffer, [`destination${family}Address`]: ip.destination as Buffer,
    reversePacketTotalCount: rs.packet_total_count as number, reverseOctetTotalCount: rs.octet_total_count as number,
    reversePacketDeltaCount: rs.packet_delta_count as number, reverseOctetDeltaCount: rs.octet_delta_count as number,
    sourcePodName: k.source_pod_name as string, sourcePodNamespace: k.source_pod_namespace as string, sourceNodeName: k.source_node_name as string,
    destinationPodName: k.destination_pod_name as string, destinationPodNamespace: k.destination_pod_namespace as string,
    destinationNodeName: k.destination_node_name as string, destinationServicePort: k.destination_service_port as number,
    destinationServicePortName: k.destination_service_port_name as string, ingressNetworkPolicyName: k.ingress_network_policy_name as string,
    ingressNetworkPolicyNamespace: k.ingress_network_policy_namespace as string, ingressNetworkPolicyType: k.ingress_network_policy_type as number,
    ingressNetworkPolicyRuleName: k.ingress_network_policy_rule_name as string, ingressNetworkPolicyRuleAction: k.ingress_network_policy_rule_action as number,
    egressNetworkPolicyName: '', egressNetworkPolicyNamespace: '', egressNetworkPolicyType: 0, egressNetworkPolicyRuleName: '', egressNetworkPolicyRuleAction: 0,
    tcpState: (tr.TCP as { state_name: string }).state_name, flowType: k.flow_type as number, egressName: '',
    egressIP: k.egress_ip === undefined ? '' : v6 ? formatIpv6(k.egress_ip as Buffer, 0) : formatIpv4(k.egress_ip as Buffer, 0), egressNodeName: '',
    proxySnatPort: (flow.proxy_snat_port as number | undefined) ?? 0,
    [`destinationCluster${family}`]: k.destination_cluster_ip as Buffer, [`proxySnat${family}`]: (flow.proxy_snat_ip as Buffer | undefined) ?? zero,
    [`destinationService${family}`]: k.destination_service_ip as Buffer,
    sourcePodUUID: uuid(k.source_pod_uid), sourceNodeUUID: uuid(k.source_node_uid), ingressNetworkPolicyUUID: uuid(k.ingress_network_policy_uid),
  };
}

const reader = flowRecordReader();
const withoutProvenance = (r: FlowRecord) => Object.fromEntries(Object.entries(r).filter(([k]) => !PROVENANCE.includes(k)));

for (const v6 of [false, true]) {
  test(`IPv${v6 ? 6 : 4}: an Agent's flows over IPFIX and over gRPC give the same FlowRecords and keys, provenance aside`, () => {
    const template = agentTemplate(v6);
    const ipfix = compileTranscoder(template);
    const grpc = new FlowTranscoder();
    const out = new RecordBuffer();
    const msg = contextFor({ exporterAddress: '10.0.0.9', exporterPort: 4739, transport: 'tls' }, template, { exportTime: 1_700_000_000, sequenceNumber: 7, receiveTime: 1, systemInitTime: undefined });
    for (let i = 0; i < 200; i++) {
      const flow = agentFlow(i, v6);
      if (i % 3 === 0) Object.assign(flow, { proxy_snat_ip: v6 ? Buffer.from('fd000000000000000000000000000a01', 'hex') : Buffer.from([192, 168, 0, 1]), proxy_snat_port: 31_000 + i });
      if (i % 5 === 0) Object.assign(flow.k8s as object, { flow_type: 4, destination_pod_name: '' });
      const values = ipfixValues(flow, v6);
      const bytes = encodeRecord(template, template.fields.map((f) => values[f.ie.name]!));
      ipfix.transcode(bytes, 0, bytes.length, msg, out);
      const fromIpfix = { key: Buffer.from(out.key()), record: reader.decode(Buffer.from(out.value())) };
      const flowBytes = encodeFlow(flow);
      grpc.write(readFlow(flowBytes, 0, flowBytes.length, new FlowFields()), flowBytes.length, { exporterAddress: '10.0.0.9', exporterPort: 5000 }, Buffer.from('10.0.0.9'), 2, out);
      const fromGrpc = { key: Buffer.from(out.key()), record: reader.decode(Buffer.from(out.value())) };
      assert.deepEqual(fromGrpc.key, fromIpfix.key, `key of flow ${i}`);
      assert.deepEqual(withoutProvenance(fromGrpc.record), withoutProvenance(fromIpfix.record), `flow ${i}`);
      assert.equal(fromIpfix.record.transport, 'tls');
      assert.equal(fromGrpc.record.transport, 'grpc');
    }
  });
}
