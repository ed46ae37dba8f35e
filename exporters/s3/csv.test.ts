import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toFlowRow } from '../row/flow-row.js';
import { aggregatedRecord, flowRecord } from '../testing/records.js';
import { S3_FIELDS } from '../row/columns.js';
import { s3CsvLine } from './csv.js';

describe('S3 CSV line', () => {
  it('writes Antrea\'s 53 fields, each at its position: destinationServiceIP (26th) after destinationClusterIP, the labels in single quotes, the insertion time after clusterUUID', () => {
    const record = { ...aggregatedRecord(0), destinationServiceIPv4: Buffer.from([10, 96, 7, 7]), sourcePodLabels: '{"app":"client"}' };
    const line = s3CsvLine(toFlowRow(record, 'uuid-1'), 1_800_000_000);
    assert.ok(line.endsWith('\n'));
    const fields = line.trimEnd().split(',');
    assert.equal(fields.length, 53, 'no field holds a comma in this record');
    const at: Record<number, string> = {
      0: String(record.flowStartMilliseconds! / 1000), 5: '10.1.0.0', 7: '10000', 18: 'client-0', 24: '10.96.0.10', 25: '10.96.7.7', 26: '5201',
      27: 'perf/server:5201', 40: "'{\"app\":\"client\"}'", 41: "'{\"app\":\"server\"}'", 42: '200000', 48: 'uuid-1', 49: '1800000000', 50: 'egress-a', 51: '172.18.0.1', 52: 'node-a',
    };
    for (const [i, value] of Object.entries(at)) assert.equal(fields[Number(i)], value, `field ${i} (${S3_FIELDS[Number(i)]})`);
  });

  it('quotes a string that would forge a field or a row, doubling its quotes', () => {
    const line = s3CsvLine(toFlowRow(flowRecord({ sourcePodName: "a,b\nc'd", sourcePodLabels: "{\"k\":\"it's\"}" }), ''), 0);
    assert.ok(line.includes(`,'a,b\nc''d',`));
    assert.ok(line.includes(`'{"k":"it''s"}'`));
    assert.equal(line.split(',').length, 54); // the one comma inside the quoted name
  });
});
