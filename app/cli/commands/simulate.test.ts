import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runMain } from '../testing/run-main.js';
import { parseTarget, simulationOptions } from './simulate.js';

test('a command line that cannot work exits 2 before anything connects, saying what to change', async () => {
  const cases: [string[], RegExp][] = [
    [['--transport', 'sctp'], /--transport sctp: one of udp, tcp, tls, grpc/],
    [['--nodes', '0'], /--nodes 0: an integer from 1 to 65,536 is needed/],
    [['--nodes', 'six'], /--nodes six: an integer from 1 to 65,536 is needed/],
    [['--flows', '1.5'], /--flows 1\.5: an integer from 1 to 10,000,000/],
    [['--ipv6-share', '2'], /--ipv6-share 2: a number from 0 to 1 is needed/],
    [['--duration', 'soon'], /--duration soon: a duration of at least 0\.001s is needed \(examples: 10s, 5m, 1h30m\)/],
    [['--export-interval', '1500ms'], /--export-interval 1500ms: whole seconds are needed/],
    [['--export-interval', '500ms'], /--export-interval 500ms: a duration of at least 1s/],
    [['--flows', '100', '--rate', '5000'], /--rate 5000 needs at least \d+ concurrent flows: 100 flows give \d+ records\/s/],
    [['--target', 'localhost:99999'], /--target localhost:99999: HOST:PORT is needed/],
    [['--ca', 'ca.crt'], /--ca is for --transport tls or grpc/],
    [['--transport', 'tls', '--template-refresh', '60s'], /--template-refresh is for --transport udp/],
    [['-o', 'yaml'], /-o yaml: the output format is one of text, json/],
    [['--bogus'], /Unknown option '--bogus'/],
  ];
  for (const [argv, message] of cases) {
    const { code, stderr } = await runMain(['simulate', ...argv]);
    assert.equal(code, 2, `${argv.join(' ')}: exit 2`);
    assert.match(stderr, message, argv.join(' '));
    assert.match(stderr, /See: flowagg simulate --help/);
  }
});

test('missing TLS files are named, with how to get them; nothing listening makes the start fail with the Nodes\' errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-simulate-cli-'));
  const tls = await runMain(['simulate', '--transport', 'grpc', '--tls-dir', dir, '-q']);
  assert.equal(tls.code, 1);
  assert.match(tls.stderr, new RegExp(`cannot read the CA certificate ${dir}/ca\\.crt: .*flowagg certs issue.*FLOWAGG_ERR_SIMULATE_TLS_FILES`));
  // A port nothing listens on (one the OS just gave out and took back): every connection is refused.
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const refused = await runMain(['simulate', '--target', `127.0.0.1:${port}`, '--nodes', '2', '--connect-timeout', '1s', '-q']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`2 of 2 Nodes could not connect within 1000 ms \\(node-0: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; node-1: .*\\[FLOWAGG_ERR_SIMULATE_CONNECT\\]`));
});

test('targets: HOST:PORT, [IPv6]:PORT, a host alone on the transport\'s port; defaults per transport', () => {
  assert.deepEqual(parseTarget('10.0.0.1:4740', 4739), { host: '10.0.0.1', port: 4740 });
  assert.deepEqual(parseTarget('[::1]:4739', 1), { host: '::1', port: 4739 });
  assert.deepEqual(parseTarget('collector.example', 14739), { host: 'collector.example', port: 14739 });
  const args = (values: Record<string, string | boolean>) => ({ values, positionals: [] });
  const tcp = simulationOptions(args({}));
  assert.equal(tcp.port, 4739);
  assert.equal(tcp.shape.workload.nodes, 6);
  assert.equal(tcp.shape.flows, 1000);
  assert.equal(tcp.bindLoopback, true);
  assert.equal(simulationOptions(args({ transport: 'udp', 'shared-source': true, 'template-refresh': '30s' })).templateRefreshMs, 30_000);
  assert.equal(simulationOptions(args({ transport: 'udp', 'shared-source': true })).bindLoopback, false);
  assert.equal(simulationOptions(args({ nodes: '3', 'first-node': '6' })).shape.workload.firstNode, 6);
  assert.throws(() => simulationOptions(args({ nodes: '10', 'first-node': '65530' })), /--first-node 65530 with 10 Nodes: Nodes are numbered below 65536/);
});
