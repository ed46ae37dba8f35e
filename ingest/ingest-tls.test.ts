// TLS end to end through the ingest listener: certificates issued into a directory by the service itself;
// an agent-like exporter with the issued client certificate gets its records into flows.raw; without a
// certificate, with a self-signed one, or over TLS 1.1, the connection is refused and nothing arrives.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ConnectionOptions, connect } from 'node:tls';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { ingestConfig } from './config.js';
import { createIngest } from './index.js';
import { agentMessages, agentTemplate, readFlowRecords } from './testing/fakes.js';
import { issueCA } from '../lib/tls/issue.js';
import { until } from '../lib/testing/until.js';

test('TLS collector: the issued client certificate is accepted; no, self-signed or TLS 1.1 clients are refused', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'flowagg-ingest-tls-'));
  const log = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  const certDir = join(root, 'tls');
  const config = ingestConfig.parse({
    aggregatorTransportProtocol: 'TLS',
    ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false }, tls: { mode: 'directory', dir: certDir, extraSANs: ['127.0.0.1'] } },
  });
  const ingest = createIngest(config, { log });
  await ingest.start();
  t.after(() => ingest.stop());
  const ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
  const client = { cert: readFileSync(join(certDir, 'client.crt'), 'utf8'), key: readFileSync(join(certDir, 'client.key'), 'utf8') };
  const servername = 'flow-aggregator.flow-aggregator.svc';
  const port = ingest.ports.tls!;

  /** Connects as an agent and sends `count` records; `ended` settles with why the connection ended. */
  const exportOver = (opts: ConnectionOptions, from: number, count: number) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca, ...opts }, () => {
      for (const m of agentMessages(new MessageEncoder({ observationDomainId: 1 }), agentTemplate(), from, count)) socket.write(m);
    });
    // TLS 1.3 reports a refused client certificate after the handshake: read, to see the collector close.
    socket.resume();
    const ended = new Promise<string>((resolve) => {
      socket.once('end', () => resolve('closed by the collector'));
      socket.once('error', (err: NodeJS.ErrnoException) => {
        socket.destroy();
        resolve(err.code ?? err.message);
      });
    });
    return { socket, ended };
  };
  /** How the collector refused a client (its connection ended by the collector), within until's bound. */
  const refusal = (opts: ConnectionOptions, from: number) => {
    let why: string | undefined;
    void exportOver(opts, from, 10).ended.then((w) => (why = w));
    return until('the collector to refuse the client', () => why);
  };

  const accepted = exportOver(client, 0, 40);
  await until('the 40 records written', () => ingest.stats().written >= 40);
  assert.equal(ingest.stats().written, 40);
  accepted.socket.end();

  // A refused client's connection ends without a record decoded: once each has ended, nothing more can come.
  await refusal({}, 100);
  const selfSigned = await issueCA({ now: new Date(), validityMs: 86_400_000 });
  await refusal({ cert: selfSigned.cert, key: selfSigned.key }, 200);
  await refusal({ ...client, minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }, 300);
  assert.equal(ingest.stats().records, 40, 'nothing from a refused client was decoded');
  const records = await readFlowRecords(log);
  assert.equal(records.length, 40);
  assert.ok(records.every(({ record }) => record.transport === 'tls' && Number(/-(\d+)$/.exec(record.sourcePodName as string)![1]) < 40));
});
