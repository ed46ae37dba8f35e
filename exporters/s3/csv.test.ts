import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toFlowRow } from '../row/flow-row.js';
import { aggregatedRecord, flowRecord } from '../testing/records.js';
import { s3CsvLine } from './csv.js';

describe('S3 CSV line', () => {
  it('writes 52 fields with the labels in single quotes and the insertion time after clusterUUID', () => {
    const line = s3CsvLine(toFlowRow(aggregatedRecord(0), 'uuid-1'), 1_800_000_000);
    assert.ok(line.endsWith('\n'));
    assert.ok(line.includes(`,'{"app":"client","i":"0"}','{"app":"server"}',`));
    assert.ok(line.trimEnd().endsWith(',uuid-1,1800000000,egress-a,172.18.0.1,node-a'));
  });

  it('quotes a string that would forge a field or a row, doubling its quotes', () => {
    const line = s3CsvLine(toFlowRow(flowRecord({ sourcePodName: "a,b\nc'd", sourcePodLabels: "{\"k\":\"it's\"}" }), ''), 0);
    assert.ok(line.includes(`,'a,b\nc''d',`));
    assert.ok(line.includes(`'{"k":"it''s"}'`));
    assert.equal(line.split(',').length, 53); // the one comma inside the quoted name
  });
});
