// Builders for the gRPC collector's tests and benchmark: Antrea Flows as protobufjs objects, their bytes, and
// files of length-delimited messages for the Go agent (integration-tests/go/agent). Production code never
// imports this file.
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { antreaType } from '../../../schemas/antrea-proto.js';

const Flow = antreaType('Flow');

/** A Flow given as protobufjs's object form (field names as in the .proto, uint64 as number or decimal string). */
export type FlowObject = Record<string, unknown>;

export function encodeFlow(flow: FlowObject): Uint8Array {
  return Flow.encode(Flow.fromObject(flow)).finish();
}

/** Any message of the package, encoded. */
export function encodeMessage(type: string, value: Record<string, unknown>): Uint8Array {
  const t = antreaType(type);
  return t.encode(t.fromObject(value)).finish();
}

/** Messages as a varint length then the bytes, one after the other (the Go agent's file format). */
export function lengthDelimited(messages: readonly Uint8Array[]): Buffer {
  const w = protobuf.Writer.create();
  for (const m of messages) w.bytes(m);
  return Buffer.from(w.finish());
}

/** Reads a file of length-delimited messages. */
export function readDelimited(bytes: Uint8Array): Uint8Array[] {
  const r = protobuf.Reader.create(bytes);
  const out: Uint8Array[] = [];
  while (r.pos < r.len) out.push(r.bytes());
  return out;
}

/** The UUID text of a number, for flows that carry UIDs. */
export function uuidOf(i: number, kind: number): string {
  const hex = (kind * 0x1000000 + i).toString(16).padStart(12, '0');
  return `6b1f3d4e-1a2b-4c3d-8e9f-${hex}`;
}

/**
 * What an Antrea Agent sends for connection `i` of its Node: an inter-Node TCP flow between two Pods through
 * a Service, with UIDs, no policy, IPv4 (or IPv6 when `v6`).
 */
export function agentFlow(i: number, v6 = false): FlowObject {
  const address = (net: number, host: number) =>
    v6 ? Buffer.from([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, net, (host >> 8) & 255, host & 255]) : Buffer.from([10, 10, net, host & 255]);
  const start = 1_700_000_000 + (i % 3600);
  return {
    ipfix: { export_time: { seconds: start + 65, nanos: 123_456_789 }, observation_domain_id: 0x5eed },
    start_ts: { seconds: start, nanos: 1000 }, end_ts: { seconds: start + 60, nanos: 999_999_999 }, end_reason: 2,
    ip: { version: v6 ? 6 : 4, source: address(1, i % 200), destination: address(2, (i * 7) % 1000) },
    transport: { protocol_number: 6, source_port: 30_000 + (i % 30_000), destination_port: 8080, TCP: { state_name: 'ESTABLISHED' } },
    k8s: {
      flow_type: 2, source_pod_namespace: 'production', source_pod_name: `frontend-7d9f8c6b5-${i % 200}`, source_pod_uid: uuidOf(i % 200, 1),
      source_node_name: 'k8s-worker-node-01', source_node_uid: uuidOf(1, 2), destination_pod_namespace: 'production',
      destination_pod_name: `backend-api-5f6d7c8b9-${(i * 7) % 1000}`, destination_node_name: `k8s-worker-node-${(i * 7) % 20}`,
      destination_cluster_ip: v6 ? address(96, 15) : Buffer.from([10, 96, 0, 15]), destination_service_ip: v6 ? address(96, 15) : Buffer.from([10, 96, 0, 15]),
      destination_service_port: 8080, destination_service_port_name: 'production/backend-api:http',
      ingress_network_policy_type: 1, ingress_network_policy_namespace: 'production', ingress_network_policy_name: 'allow-frontend',
      ingress_network_policy_uid: uuidOf(7, 3), ingress_network_policy_rule_name: 'rule-1', ingress_network_policy_rule_action: 1,
    },
    stats: { packet_total_count: 1000 + i, packet_delta_count: 10, octet_total_count: 1_500_000 + i * 7, octet_delta_count: 15_000 },
    reverse_stats: { packet_total_count: 900 + i, packet_delta_count: 9, octet_total_count: 1_200_000, octet_delta_count: 12_000 },
  };
}

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 53n }), fc.constant(0n)).map(String);
const text = fc.oneof(fc.constant(''), fc.string({ maxLength: 40 }), fc.constantFrom('ESTABLISHED', 'production', 'a\u00e9\u4e2d'));
const uid = fc.oneof(fc.constant(''), fc.uuid(), fc.string({ maxLength: 36 }));
const seconds = fc.oneof(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 32 }));
const timestamp = fc.record({ seconds, nanos: fc.integer({ min: 0, max: 999_999_999 }) }, { requiredKeys: [] });

/** Random Flows of one family: any value, any sub-message or leaf left out, addresses of the right lengths or empty. */
export function flowArbitrary(): fc.Arbitrary<FlowObject> {
  return fc.constantFrom(4, 6, 0).chain((version) => {
    const size = version === 6 ? 16 : 4;
    const address = fc.oneof(fc.constant(Buffer.alloc(0)), fc.uint8Array({ minLength: size, maxLength: size }).map(Buffer.from));
    const anyAddress = fc.oneof(fc.constant(Buffer.alloc(0)), fc.uint8Array({ minLength: 4, maxLength: 4 }).map(Buffer.from), fc.uint8Array({ minLength: 16, maxLength: 16 }).map(Buffer.from));
    const stats = fc.record({ packet_total_count: u64, packet_delta_count: u64, octet_total_count: u64, octet_delta_count: u64 }, { requiredKeys: [] });
    const k8s = fc.record({
      flow_type: fc.integer({ min: 0, max: 4 }), source_pod_namespace: text, source_pod_name: text, source_pod_uid: uid, source_node_name: text,
      source_node_uid: uid, destination_pod_namespace: text, destination_pod_name: text, destination_pod_uid: uid, destination_node_name: text,
      destination_node_uid: uid, destination_cluster_ip: address, destination_service_port: u32, destination_service_port_name: text,
      destination_service_uid: uid, ingress_network_policy_type: fc.integer({ min: 0, max: 4 }), ingress_network_policy_namespace: text,
      ingress_network_policy_name: text, ingress_network_policy_uid: uid, ingress_network_policy_rule_name: text,
      ingress_network_policy_rule_action: fc.integer({ min: 0, max: 3 }), egress_network_policy_type: fc.integer({ min: 0, max: 4 }),
      egress_network_policy_namespace: text, egress_network_policy_name: text, egress_network_policy_uid: uid, egress_network_policy_rule_name: text,
      egress_network_policy_rule_action: fc.integer({ min: 0, max: 3 }), egress_name: text, egress_ip: anyAddress, egress_node_name: text,
      egress_node_uid: uid, egress_uid: uid, destination_service_ip: address,
      source_pod_labels: fc.record({ labels: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }) }),
    }, { requiredKeys: [] });
    return fc.record({
      id: text,
      ipfix: fc.record({ export_time: timestamp, sequence_number: u32, observation_domain_id: u32, exporter_ip: text }, { requiredKeys: [] }),
      start_ts: timestamp, end_ts: timestamp, end_reason: fc.integer({ min: 0, max: 5 }),
      ip: fc.record({ version: fc.constant(version), source: address, destination: address }, { requiredKeys: [] }),
      transport: fc.record({
        protocol_number: u32, source_port: u32, destination_port: u32, TCP: fc.record({ state_name: text }, { requiredKeys: [] }),
      }, { requiredKeys: [] }),
      k8s, stats, reverse_stats: stats, flow_direction: fc.constantFrom(0, 1, 255),
      proxy_snat_ip: address, proxy_snat_port: u32,
    }, { requiredKeys: [] });
  });
}
