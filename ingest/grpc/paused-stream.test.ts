// While the log is behind, a paused Export stream holds about one message, not grpc-js's 16: the Agent's
// writes beyond that wait in HTTP/2 flow control. Observed from the client: a write's callback runs once the
// server's HTTP/2 layer took its bytes.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { componentLogger } from '../../lib/telemetry/logger.js';
import { until } from '../../lib/testing/until.js';
import { CappedLabel } from '../../lib/telemetry/capped-label.js';
import { EXPORT_PATH } from '../../schemas/antrea-proto.js';
import type { ProduceQueue } from '../produce-queue.js';
import { RunWriter, type WrittenRuns } from '../records/run-writer.js';
import { startCertificateSource } from '../../lib/tls/start.js';
import { tlsSection } from '../../lib/tls/config.js';
import { startGrpcCollector } from './collector.js';
import { grpcSection } from './config.js';
import { agentFlow, encodeMessage } from './testing/flows.js';

const identity = (b: Buffer) => b;

/** A queue that stays throttled until drained: every stream that writes to it pauses. */
class ThrottledQueue extends EventEmitter<{ drain: [] }> {
  throttled = true;
  records = 0;
  runWriter(): RunWriter {
    return new RunWriter();
  }
  enqueueRuns(written: WrittenRuns): void {
    this.records += written.records;
  }
}

test('a paused stream buffers about one message; the rest waits in flow control and arrives after the drain', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-grpc-paused-'));
  const certificates = await startCertificateSource(tlsSection.parse({ mode: 'directory', dir }), '');
  t.after(() => certificates.stop());
  const queue = new ThrottledQueue();
  const collector = await startGrpcCollector(grpcSection.parse({ port: 0 }), '127.0.0.1', 'TLSv1.2', {
    queue: queue as unknown as ProduceQueue, certificates, labels: new CappedLabel(8), logger: componentLogger('ingest'),
  });
  t.after(() => collector.close());
  const credentials = grpc.credentials.createSsl(readFileSync(join(dir, 'ca.crt')), readFileSync(join(dir, 'client.key')), readFileSync(join(dir, 'client.crt')));
  const client = new grpc.Client(`127.0.0.1:${collector.port}`, credentials, { 'grpc.ssl_target_name_override': 'flow-aggregator.flow-aggregator.svc' });
  t.after(() => client.close());
  // 20 messages of about 900 KB (2,000 flows each).
  const message = Buffer.from(encodeMessage('ExportRequest', { flows: Array.from({ length: 2000 }, (_, i) => agentFlow(i)) }));
  assert.ok(message.length > 800_000 && message.length < 4 * 1024 * 1024, `message of ${message.length} bytes`);
  const status = new Promise<grpc.status>((resolve) => {
    const call = client.makeClientStreamRequest(EXPORT_PATH, identity, identity, (err) => resolve(err === null ? grpc.status.OK : err.code!));
    for (let i = 0; i < 20; i++) call.write(message, () => taken++);
    call.end();
  });
  let taken = 0;
  await until('the first message to arrive', () => queue.records > 0, { timeoutMs: 60_000 });
  // Until nothing more is taken for a second (a slower machine only takes fewer).
  for (let last = -1; last !== taken; await sleep(1000)) last = taken;
  t.diagnostic(`${taken} of 20 messages taken while paused`);
  assert.equal(queue.records, 2000, 'one message handled, then the stream paused');
  assert.ok(taken <= 4, `${taken} of 20 messages taken by the server while paused (grpc-js alone would take 17)`);
  queue.throttled = false;
  queue.emit('drain');
  assert.equal(await status, grpc.status.OK);
  assert.equal(queue.records, 20 * 2000, 'every flow arrived after the drain');
});
