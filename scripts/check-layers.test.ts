import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importsOf, layerViolation } from './check-layers.js';

test('imports go down the floors, and the services do not import each other', () => {
  assert.equal(layerViolation('app/serve.ts', 'processor/index.ts'), undefined);
  assert.equal(layerViolation('simulate/agent.ts', 'ingest/records/transcode.js'), undefined);
  assert.equal(layerViolation('processor/work.ts', 'schemas/record-buffer.js'), undefined);
  assert.equal(layerViolation('schemas/avro.ts', 'lib/errors.js'), undefined);
  assert.equal(layerViolation('processor/index.ts', 'processor/aggregate/store.js'), undefined);
  assert.match(layerViolation('lib/ipfix/lists.ts', 'schemas/flow-record.js')!, /^schemas\/ is above lib\//);
  assert.match(layerViolation('exporters/index.ts', 'app/service-config.js')!, /^app\/ is above exporters\//);
  assert.match(layerViolation('processor/config.ts', 'exporters/ipfix/config.js')!, /services side by side/);
});

test('only test code uses the test clients; tools import anything', () => {
  assert.equal(layerViolation('processor/aggregate/workload.test.ts', 'simulate/antrea/workload.js'), undefined);
  assert.equal(layerViolation('exporters/testing/crash.ts', 'integration-tests/harness/crash-loop.js'), undefined);
  assert.match(layerViolation('processor/aggregate/store.ts', 'simulate/antrea/workload.js')!, /above/);
  assert.match(layerViolation('ingest/index.ts', 'integration-tests/harness/kafka.js')!, /on no floor/);
  assert.equal(layerViolation('bench/ingest.bench.ts', 'app/serve.js'), undefined);
});

test('static, type-only, re-exported and dynamic imports are all read', () => {
  const text = [
    "import { a } from '../lib/a.js';",
    "import { type B } from './b.js';",
    "export { c } from '../../schemas/c.js';",
    "import './side-effect.js';",
    "const d = await import('../ingest/d.js');",
    "import { readFileSync } from 'node:fs';",
  ].join('\n');
  assert.deepEqual(importsOf('processor/x/y.ts', text), ['processor/lib/a.js', 'processor/x/b.js', 'schemas/c.js', 'processor/x/side-effect.js', 'processor/ingest/d.js']);
});

