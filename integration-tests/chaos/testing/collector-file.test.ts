import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { headerOnlyMessage as message } from '../../harness/collector.js';
import { freePort } from '../../harness/ports.js';
import { IpfixCollector } from './collector.js';
import { type FileMessage, streamFrames } from './collector-file.js';

for (const stamped of [false, true]) {
  test(`the collector child's file reads back message by message, ${stamped ? 'with' : 'without'} receipt times, whole or in chunks`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'collector-file-'));
    const collector = new IpfixCollector(await freePort(), join(dir, 'c.ipfix'), stamped);
    try {
      await collector.start();
      const before = Date.now();
      const socket = connect(collector.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      await new Promise<void>((resolve) => socket.end(Buffer.concat([message(16, 1), message(40, 2), message(20, 3)]), resolve));
      await new Promise((r) => setTimeout(r, 300));
      await collector.stop();
      const after = Date.now();
      assert.deepEqual(collector.messages().map((m) => [m.bytes.length, m.bytes.readUInt32BE(8), m.session]), [[16, 1, 0], [40, 2, 0], [20, 3, 0]]);
      const streamed: FileMessage[] = [];
      // 30-byte chunks: every frame but the first straddles two.
      await streamFrames(collector.file, stamped, (m) => streamed.push(m), 30);
      assert.deepEqual(streamed.map((m) => m.bytes.readUInt32BE(8)), [1, 2, 3]);
      for (const m of streamed) assert.ok(stamped ? m.receivedAt >= before && m.receivedAt <= after : Number.isNaN(m.receivedAt), String(m.receivedAt));
    } finally {
      await collector.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
