import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { agentStreams } from './agent-streams.js';
import { at, scenarioWorkload } from './scenario.js';
import { sendStreams } from './sender.js';

const TEMPLATE_SET_ID = 2;

/** A collector that keeps what each connection sent, by the address it came from. */
async function sink(): Promise<{ port: number; connections: { from: string; bytes: () => Buffer }[]; close: () => void }> {
  const connections: { from: string; bytes: () => Buffer }[] = [];
  const server = createServer((socket: Socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (b: Buffer) => chunks.push(b));
    connections.push({ from: socket.remoteAddress!, bytes: () => Buffer.concat(chunks) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, connections, close: () => server.close() };
}

test('the drift sender: an Agent joining late, one stopping for good and one reconnecting send exactly what their scripts say, each connection a session of its own', async (t) => {
  const collector = await sink();
  t.after(collector.close);
  const w = scenarioWorkload();
  const streams = agentStreams(w, { fillerUntil: at(w, 60), fillerFlows: 50, withoutFiller: new Set([1]) });
  const scripts = new Map([[4, { joinsAt: at(w, 10) }], [1, { stopsAt: at(w, 6) }], [3, { outage: { from: at(w, 12), until: at(w, 20) } }]]);
  const sent = await sendStreams(w, streams, { port: collector.port, speed: 200, scripts });

  const dueBefore = (node: number, time: number) => streams[node]!.filter((d) => d.due < time).length;
  const all = streams.reduce((n, s) => n + s.length, 0);
  assert.equal(sent.lost, 0);
  assert.equal(sent.ledger.records, all - (streams[1]!.length - dueBefore(1, at(w, 6))) - dueBefore(4, at(w, 10)), 'everything but what Node 1 had due after it stopped and Node 4 before it started');
  assert.equal(collector.connections.length, 7, 'one connection per Agent, and a second one for the Agent that reconnected');
  assert.equal(new Set(collector.connections.map((c) => c.from)).size, 6, 'each Agent from an address of its own');
  for (const c of collector.connections) assert.equal(c.bytes().readUInt16BE(16), TEMPLATE_SET_ID, `the connection from ${c.from} starts with the templates`);
  const joined = sent.ledger.flows(w, w.flowCount).filter((f) => [f.source, f.destination].some((h) => h?.node === 'node-4'));
  const carried = joined.filter((f) => { const h = f.source?.node === 'node-4' ? f.source : f.destination!; return h.sums.packetDeltaCount === h.lastTotals.packetTotalCount; });
  assert.equal(carried.length, joined.length, 'the Agent that started late sent deltas adding up to its totals: its first record carries what it counted before');
});
