// A simulated gRPC Agent's records reach flows.raw as the IPFIX Agent's do: the same FlowRecords and flow
// keys, provenance aside, for every kind of flow and both families, so that the processor sees one cluster
// whichever transport the simulator uses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceEncode } from '../ingest/grpc/flow-reference.js';
import { antreaType } from '../schemas/antrea-proto.js';
import { type FlowRecord, flowRecordReader } from '../schemas/flow-record.js';
import { FlowRecordEncoder } from './antrea/records.js';
import { FLOW_KINDS, antreaWorkload } from './antrea/workload.js';
import { exportRequest } from './flow-message.js';

const PROVENANCE = ['exporterAddress', 'exporterPort', 'transport', 'exportTime', 'sequenceNumber', 'templateId', 'receiveTime'];
const withoutProvenance = (r: FlowRecord) => Object.fromEntries(Object.entries(r).filter(([k]) => !PROVENANCE.includes(k)));

test('over gRPC, every record gives the FlowRecord and key the IPFIX path gives; one Flow per ExportRequest, as Agents send', () => {
  const w = antreaWorkload({ nodes: 5, flows: 300, seed: 4, ipv6Share: 0.3 });
  const ExportRequest = antreaType('ExportRequest');
  const Flow = antreaType('Flow');
  const ipfix = new FlowRecordEncoder();
  const reader = flowRecordReader();
  const kinds = new Set<string>();
  const families = new Set<number>();
  for (const r of w.records()) {
    const request = ExportRequest.decode(exportRequest(r, r.exportTime * 1000 + 250)) as unknown as { flows: object[] };
    assert.equal(request.flows.length, 1);
    const grpc = referenceEncode(Flow.encode(request.flows[0]!).finish(), { exporterAddress: r.node.address, exporterPort: 1 }, 0);
    const expected = ipfix.flowRecord(r);
    assert.deepEqual(grpc.key, Buffer.from(expected.key), `key of flow ${r.flow} (${w.flow(r.flow).kind}), ${r.half}`);
    const record = reader.decode(grpc.value);
    assert.deepEqual(withoutProvenance(record), withoutProvenance(reader.decode(expected.value)), `flow ${r.flow}, ${r.half}, round ${r.round}`);
    assert.equal(record.exportTime, r.exportTime * 1000, 'export time in whole seconds');
    assert.equal(record.observationDomainId, r.node.observationDomainId);
    kinds.add(w.flow(r.flow).kind);
    families.add(r.family);
  }
  assert.deepEqual(kinds, new Set(FLOW_KINDS));
  assert.deepEqual(families, new Set([4, 6]));
});
