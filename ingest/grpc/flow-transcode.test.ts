import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isFlowaggError } from '../../lib/errors.js';
import { formatIpv4 } from '../../lib/ipfix/text.js';
import { flowRecordReader } from '../../schemas/flow-record.js';
import { parseFlowKey } from '../../schemas/flow-key.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { GRPC_MALFORMED } from '../../schemas/errors.js';
import { GRPC_INVALID_FLOW } from './errors.js';
import { FlowFields, readFlow } from '../../schemas/antrea-flow-fields.js';
import { referenceEncode } from './flow-reference.js';
import { FlowTranscoder, type GrpcOrigin } from './flow-transcode.js';
import { agentFlow, encodeFlow, flowArbitrary, uuidOf } from './testing/flows.js';

const origin: GrpcOrigin = { exporterAddress: '10.0.0.5', exporterPort: 40_123 };
const originBytes = Buffer.from(origin.exporterAddress);
const transcoder = new FlowTranscoder();

function fast(bytes: Uint8Array, receiveTime = 1_700_000_123_456) {
  const out = new RecordBuffer(4096);
  transcoder.write(readFlow(bytes, 0, bytes.length, new FlowFields()), bytes.length, origin, originBytes, receiveTime, out);
  return { key: Buffer.from(out.key()), value: Buffer.from(out.value()) };
}

test('the fast transcoder writes the bytes of the reference path (protobufjs, the mapping table, avsc) for any Flow', () => {
  fc.assert(
    fc.property(flowArbitrary(), (flow) => {
      const bytes = encodeFlow(flow);
      let ref;
      try {
        ref = referenceEncode(bytes, origin, 1_700_000_123_456);
      } catch (err) {
        // Addresses of a family the flow does not have (ip left out): both refuse it.
        assert.ok(isFlowaggError(err, GRPC_INVALID_FLOW), String(err));
        assert.throws(() => fast(bytes), (e) => isFlowaggError(e, GRPC_INVALID_FLOW) && e.message === err.message);
        return;
      }
      const got = fast(bytes);
      assert.deepEqual(got.key, ref.key);
      assert.deepEqual(got.value, ref.value);
    }),
    { numRuns: 2000 },
  );
});

// The reference parses every field; the fast path skips the sub-messages it does not read (Pod labels, say),
// so it may accept damage there that the reference refuses. Where both accept, the bytes must agree.
test('seeded: Flow bytes cut short or with one byte changed are refused, or written as the reference path writes them', () => {
  fc.assert(
    fc.property(flowArbitrary(), fc.nat(), fc.nat(255), fc.boolean(), (flow, at, byte, cut) => {
      const bytes = Buffer.from(encodeFlow(flow));
      if (bytes.length === 0) return;
      const damaged = cut ? bytes.subarray(0, at % bytes.length) : bytes;
      if (!cut) damaged[at % bytes.length] = byte;
      let got;
      try {
        got = fast(damaged);
      } catch (err) {
        assert.ok(isFlowaggError(err, GRPC_MALFORMED) || isFlowaggError(err, GRPC_INVALID_FLOW), String(err));
        return;
      }
      let ref;
      try {
        ref = referenceEncode(damaged, origin, 1_700_000_123_456);
      } catch {
        return;
      }
      assert.deepEqual(got.key, ref.key);
      assert.deepEqual(got.value, ref.value);
    }),
    { numRuns: 3000, seed: 18 },
  );
});

test('an Agent flow becomes the FlowRecord the reference mapping table says, field by field', () => {
  const record = flowRecordReader().decode(fast(encodeFlow(agentFlow(3))).value);
  const ip = (b: unknown) => formatIpv4(b as Buffer, 0);
  assert.equal(record.transport, 'grpc');
  assert.equal(record.exporterAddress, '10.0.0.5');
  assert.equal(record.exporterPort, 40_123);
  assert.equal(record.observationDomainId, 0x5eed);
  assert.equal(record.exportTime, (1_700_000_003 + 65) * 1000, 'whole seconds of ipfix.export_time');
  assert.equal(record.sequenceNumber, 0);
  assert.equal(record.templateId, 0);
  assert.equal(record.receiveTime, 1_700_000_123_456);
  assert.equal(record.flowStartMilliseconds, 1_700_000_003_000, 'nanos dropped, as Antrea does');
  assert.equal(record.flowStartSource, 'seconds');
  assert.equal(record.flowEndMilliseconds, 1_700_000_063_000);
  assert.equal(record.flowEndReason, 2);
  assert.equal(ip(record.sourceIPv4Address), '10.10.1.3');
  assert.equal(ip(record.destinationIPv4Address), '10.10.2.21');
  assert.equal(record.sourceIPv6Address, null);
  assert.deepEqual([record.protocolIdentifier, record.sourceTransportPort, record.destinationTransportPort], [6, 30_003, 8080]);
  assert.deepEqual([record.packetTotalCount, record.packetDeltaCount, record.octetTotalCount, record.octetDeltaCount], [1003, 10, 1_500_021, 15_000]);
  assert.deepEqual([record.reversePacketTotalCount, record.reversePacketDeltaCount, record.reverseOctetTotalCount, record.reverseOctetDeltaCount], [903, 9, 1_200_000, 12_000]);
  assert.equal(record.tcpState, 'ESTABLISHED');
  assert.equal(record.flowType, 2);
  assert.deepEqual([record.sourcePodNamespace, record.sourcePodName, record.sourceNodeName], ['production', 'frontend-7d9f8c6b5-3', 'k8s-worker-node-01']);
  assert.deepEqual([record.destinationPodNamespace, record.destinationPodName, record.destinationNodeName], ['production', 'backend-api-5f6d7c8b9-21', 'k8s-worker-node-1']);
  assert.equal(ip(record.destinationClusterIPv4), '10.96.0.15');
  assert.equal(ip(record.destinationServiceIPv4), '10.96.0.15');
  assert.deepEqual([record.destinationServicePort, record.destinationServicePortName], [8080, 'production/backend-api:http']);
  assert.deepEqual([record.ingressNetworkPolicyType, record.ingressNetworkPolicyNamespace, record.ingressNetworkPolicyName], [1, 'production', 'allow-frontend']);
  assert.deepEqual([record.ingressNetworkPolicyRuleName, record.ingressNetworkPolicyRuleAction], ['rule-1', 1]);
  assert.deepEqual([record.egressNetworkPolicyType, record.egressNetworkPolicyName, record.egressNetworkPolicyRuleAction], [0, '', 0]);
  assert.deepEqual([record.egressName, record.egressIP, record.egressNodeName], ['', '', '']);
  assert.equal(ip(record.proxySnatIPv4), '0.0.0.0', 'an empty address is the zero address, as the Agent writes it over IPFIX');
  assert.equal(record.proxySnatPort, 0);
  assert.equal((record.sourcePodUUID as Buffer).toString('hex'), uuidOf(3, 1).replaceAll('-', ''));
  assert.equal(record.destinationPodUUID, null, 'no UID sent');
  assert.equal((record.ingressNetworkPolicyUUID as Buffer).toString('hex'), uuidOf(7, 3).replaceAll('-', ''));
  assert.deepEqual(record.extras, []);
  assert.deepEqual(parseFlowKey(fast(encodeFlow(agentFlow(3))).key), {
    family: 4, source: new Uint8Array([10, 10, 1, 3]), destination: new Uint8Array([10, 10, 2, 21]), protocol: 6, sourcePort: 30_003, destinationPort: 8080,
  });
});

test('an empty Flow (every sub-message missing) is an IPv4 flow of zeros and empty names, never a crash', () => {
  const record = flowRecordReader().decode(fast(new Uint8Array(0)).value);
  assert.equal(formatIpv4(record.sourceIPv4Address as Buffer, 0), '0.0.0.0');
  assert.deepEqual([record.sourcePodName, record.tcpState, record.flowStartMilliseconds, record.octetDeltaCount], ['', '', 0, 0]);
});

test('the FROM_EXTERNAL rewrite: the ingress-Node half is keyed by its proxy SNAT address and port', () => {
  const flow = agentFlow(1);
  Object.assign(flow.k8s as object, { flow_type: 4, destination_pod_name: '' });
  Object.assign(flow, { proxy_snat_ip: Buffer.from([192, 168, 0, 1]), proxy_snat_port: 31_000 });
  const key = parseFlowKey(fast(encodeFlow(flow)).key)!;
  assert.deepEqual([...key.source], [192, 168, 0, 1]);
  assert.equal(key.sourcePort, 31_000);
});

test('counters beyond 2^53 go to extras with their 8 bytes, as the IPFIX path keeps them', () => {
  const flow = agentFlow(1);
  (flow.stats as Record<string, unknown>).octet_total_count = '18446744073709551615';
  const record = flowRecordReader().decode(fast(encodeFlow(flow)).value);
  assert.equal(record.octetTotalCount, null);
  assert.deepEqual(record.extras.map((e) => ({ ...e })), [{ pen: 0, id: 85, value: Buffer.alloc(8, 0xff) }]);
});

test('malformed protobuf and impossible addresses are refused with an error naming the field', () => {
  const good = encodeFlow(agentFlow(1));
  const truncated = good.subarray(0, good.length - 3);
  assert.throws(() => fast(truncated), (e) => isFlowaggError(e, GRPC_MALFORMED) && /length beyond the message|truncated/.test(e.message));
  assert.throws(() => fast(Buffer.from([0x0b])), (e) => isFlowaggError(e, GRPC_MALFORMED) && /wire type 3/.test(e.message));
  assert.throws(() => fast(Buffer.from([0x28, 0x02, 0x00])), (e) => isFlowaggError(e, GRPC_MALFORMED)); // field 5 then a field-0 tag
  assert.throws(() => fast(Buffer.from([0x42, 0x01, 0x08])), (e) => isFlowaggError(e, GRPC_MALFORMED) && /k8s|flow_type|flowType/.test(e.message));
  const wrong = agentFlow(1);
  (wrong.ip as Record<string, unknown>).source = Buffer.from([1, 2, 3, 4, 5]);
  assert.throws(() => fast(encodeFlow(wrong)), (e) => isFlowaggError(e, GRPC_INVALID_FLOW) && /ip\.source: 5 bytes, an IPv4 address has 4/.test(e.message));
});

test('with Confluent framing the value is 00, the schema id, then the same Avro body', () => {
  const bytes = encodeFlow(agentFlow(2));
  const confluent = new FlowTranscoder({ kind: 'confluent', schemaId: 7 });
  const out = new RecordBuffer(4096);
  confluent.write(readFlow(bytes, 0, bytes.length, new FlowFields()), bytes.length, origin, originBytes, 1, out);
  const value = Buffer.from(out.value());
  assert.deepEqual([...value.subarray(0, 5)], [0, 0, 0, 0, 7]);
  assert.deepEqual(value.subarray(5), fast(bytes, 1).value.subarray(10), 'the body after the 10-byte single-object header');
});
