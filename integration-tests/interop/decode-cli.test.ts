// `flowagg decode` on a capture of softflowd's export (IPFIX in UDP datagrams, as a collector would have
// recorded it) prints the records tshark decodes from the same file, and they are the generated flows.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { flowView, sortRecords, systemInitMs } from '../harness/flow-view.js';
import type { SoftflowdTimeFormat } from '../harness/softflowd.js';
import { exportTraffic } from '../harness/softflowd-export.js';
import { conversationMix, renderTraffic } from '../harness/traffic.js';
import { collectorPcap, DEFAULT_EXPORTER, tsharkDecodeIpfix } from '../harness/tshark.js';
import { requireTools, runTool, SOFTFLOWD, TSHARK } from '../harness/tools.js';
import { type ComparableRecord, fromDecodeJson, fromTshark } from './comparable.js';

const CLI = join(import.meta.dirname, '../../bin/flowagg.js');
const traffic = renderTraffic(conversationMix({ count: 80, seed: 5 }));
const withoutPosition = (r: ComparableRecord) => ({ templateId: r.templateId, fields: r.fields.map(({ pen, id, value }) => ({ pen, id, value })) });

const cases: { bidirectional: boolean; timeFormat: SoftflowdTimeFormat }[] = [
  { bidirectional: false, timeFormat: 'milli' },
  { bidirectional: true, timeFormat: 'nano' },
  { bidirectional: false, timeFormat: 'sysUpTime' },
];

for (const c of cases) {
  test(`flowagg decode of a pcap of softflowd ${c.bidirectional ? '-b ' : ''}(${c.timeFormat}) prints what tshark decodes`, async (t) => {
    if (!requireTools(t, SOFTFLOWD, TSHARK)) return;
    const exp = await exportTraffic(traffic, { transport: 'udp', ...c, signal: t.signal });
    const messages = exp.messages.map((m) => m.bytes);
    const dir = await mkdtemp(join(tmpdir(), 'flowagg-decode-'));
    try {
      const path = join(dir, 'export.pcap');
      await writeFile(path, collectorPcap(messages));
      const run = await runTool(process.execPath, [CLI, 'decode', path], { timeoutMs: 120_000, signal: t.signal });
      assert.equal(run.stderr, '');
      const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.ok(lines.every((l) => l['@exporter'] === `${DEFAULT_EXPORTER.address}:${DEFAULT_EXPORTER.port}`));
      const ours = lines.map(fromDecodeJson);

      const theirs = await tsharkDecodeIpfix(messages, { signal: t.signal });
      assert.equal(ours.length, theirs.records.length);
      theirs.records.forEach((r, i) => {
        const mine = ours[i] as ComparableRecord;
        assert.deepEqual(withoutPosition(mine), withoutPosition(fromTshark(r, mine)), `record ${i + 1}`);
      });

      let initMs: bigint | undefined;
      const flows = ours.flatMap((r) => {
        initMs = systemInitMs(r.fields) ?? initMs;
        return flowView(r.fields, initMs) ?? [];
      });
      assert.deepEqual(sortRecords(flows), sortRecords(exp.expected));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
