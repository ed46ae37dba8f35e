// Issue 19's browser test: the flow explorer as a person sees it, in headless Chromium (Debian's package,
// driven by playwright-core; no browser download). `flowagg run` in an empty directory, `flowagg simulate`
// against it (denied flows, traffic to and from outside), and every view opened:
// - while the simulator runs, how long after its start each view first shows data (printed, not asserted:
//   speed is for benchmarks);
// - once everything sent is exported: the top talkers' bytes equal the simulator's sums, Pod pair by Pod
//   pair and namespace pair by namespace pair; each denied flow is listed under its policy; the search
//   finds a Pod's flows; a row opens the flow and its path link shows both Nodes of an inter-Node flow,
//   each with the bytes that Node sent;
// - the page asks nothing of any other server and logs no error; a screenshot of each view is saved
//   under test-output/explorer/.
// Without Chromium the test is skipped with the reason, except in CI, where that is a failure.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Page } from 'playwright-core';
import { readLogApi, remoteAdmin } from '../../lib/log/admin-api.js';
import { until } from '../../lib/testing/until.js';
import type { FlowSums } from '../../simulate/ledger.js';
import type { SimulationReport } from '../../simulate/report.js';
import { EPHEMERAL_RUN_ENV, recordMetrics, startRun, stopRun } from '../harness/flowagg-run.js';
import { CHROMIUM, findExecutable, requireTools, runTool } from '../harness/tools.js';

const CLI = join(import.meta.dirname, '../../bin/flowagg.js');
const SCREENSHOTS = join(import.meta.dirname, '../../test-output/explorer');

/** An address as the explorer prints it (RFC 5952 for IPv6), whatever form the report gives. */
const canonical = (address: string) => (address.includes(':') ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);

/** The bytes a flow counts on the page: both directions, from the source Node when it reported, else the destination Node. */
const bytesOf = (f: FlowSums) => {
  const half = f.source ?? f.destination!;
  return half.octetDeltaCount + half.reverseOctetDeltaCount;
};
/** An end as the explorer names it: `namespace/pod`, or `external/address` outside the cluster. */
const endOf = (pod: FlowSums['ends']['source'], address: string) => (pod === undefined ? `external/${canonical(address)}` : `${pod.namespace}/${pod.name}`);
const nsOf = (pod: FlowSums['ends']['source']) => pod?.namespace ?? 'external';
/** A FROM_EXTERNAL flow of which only the Pod's Node sent records: its records carry the tuple after SNAT, which the report does not give. */
const postSnatOnly = (f: FlowSums) => f.kind === 'fromExternal' && f.source === undefined;
/**
 * The Pod at one end, when a record sent names it: each half of a two-Node flow names its own side's Pod,
 * the one Node of an intra-Node flow both, the one Node of any other flow its own side only (so a denied
 * flow's other end is an address: no Kubernetes API fills it in here).
 */
function named(f: FlowSums, side: 'source' | 'destination'): FlowSums['ends']['source'] {
  const reporter = f.kind === 'denyIngress' ? 'destination' : 'source';
  const names = f.reporters === 2 ? f[side] !== undefined : f.kind === 'intraNode' || reporter === side;
  return names ? f.ends[side] : undefined;
}
const tupleText = (f: FlowSums) => `${canonical(f.sourceAddress)}:${f.sourcePort} → ${canonical(f.destinationAddress)}:${f.destinationPort} TCP`;

function sums(flows: readonly FlowSums[], key: (f: FlowSums) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of flows) out.set(key(f), (out.get(key(f)) ?? 0) + bytesOf(f));
  return out;
}

/** The page's globals, as the functions evaluated in it use them (this file has no DOM types). */
interface InPage {
  readonly document: { querySelector(selector: string): { readonly dataset: Record<string, string | undefined>; getAttribute(name: string): string | null } | null };
  readonly location: { hash: string };
}

/** Waits until <main> holds a finished view whose `data-<key>` is `value`. */
async function rendered(page: Page, key: 'hash' | 'view', value: string): Promise<void> {
  await page.waitForFunction(([k, v]) => {
    const main = (globalThis as unknown as InPage).document.querySelector('main');
    return main !== null && main.getAttribute('aria-busy') === 'false' && main.dataset[k] === v;
  }, [key, value] as const, { timeout: 20_000 });
}

/** Shows the view of `hash` and waits until the page has rendered it. */
async function show(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as InPage).location.hash = h), hash);
  await rendered(page, 'hash', hash);
}

/** A table's rows as [first cell's text, the exact bytes of its Bytes column]. */
async function rankedRows(page: Page, caption: string): Promise<Map<string, number>> {
  const rows = await page.$$eval('table', (tables, c) => {
    const t = tables.find((x) => x.caption?.textContent === c);
    if (t === undefined) return [];
    return [...t.tBodies[0]!.rows].filter((r) => r.cells.length > 1).map((r) => [r.cells[0]!.textContent!.trim(), Number(r.cells[1]!.querySelector('data')!.getAttribute('value'))] as [string, number]);
  }, caption);
  return new Map(rows);
}

test('flow explorer: every view in Chromium shows what the simulator sent, asks no other server and logs no error', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, CHROMIUM)) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-explorer-'));
  const run = await startRun(dir, { env: EPHEMERAL_RUN_ENV });
  t.after(() => { if (run.child.process.exitCode === null) run.child.process.kill('SIGKILL'); });
  const origin = `http://127.0.0.1:${run.httpPort}`;

  const browser = await chromium.launch({ executablePath: findExecutable(CHROMIUM.command)!, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const outside: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(`${origin}/`) && !r.url().startsWith('data:')) outside.push(r.url()); });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/#/overview?range=15m`);

  // Four records a second apart per flow and Node, a new generation every 4 s: denied flows and traffic to
  // and from outside among them.
  const started = Date.now();
  const simulation = runTool(process.execPath, [CLI, 'simulate', '--target', `127.0.0.1:${run.tcpPort}`, '--duration', '12s', '--flows', '120', '--export-interval', '1s', '--records-per-flow', '4', '--per-flow', '-q', '-o', 'json'], { cwd: dir, timeoutMs: 120_000, allowFailure: true, signal: t.signal });
  const firstData: Record<string, number> = {};
  const views: [string, string][] = [['overview', 'table tbody data'], ['graph', 'svg .edge'], ['drops', 'article.rule'], ['flows', 'table tbody data']];
  for (let round = 0; Object.keys(firstData).length < views.length && Date.now() - started < 60_000; round++) {
    for (const [view, selector] of views) {
      if (firstData[view] !== undefined) continue;
      await show(page, `#/${view}?range=15m&round=${round}`);
      if ((await page.$(selector)) !== null) firstData[view] = (Date.now() - started) / 1000;
    }
    await sleep(200);
  }
  console.log(`first data after flowagg simulate started: ${Object.entries(firstData).map(([v, s]) => `${v} ${s.toFixed(1)} s`).join(', ')}`);

  const sim = await simulation;
  assert.equal(sim.exitCode, 0, `flowagg simulate exits 0; stderr:\n${sim.stderr.slice(-2000)}`);
  const report = JSON.parse(sim.stdout) as SimulationReport;
  const flows = report.flowSums!;
  // Done when ingest wrote every record sent, the processor exported every flow for the last time, and
  // the explorer folded all that the processor wrote (at most a transaction marker left per partition).
  const admin = remoteAdmin(readLogApi(join(dir, 'data', 'log'))!);
  await until('every flow exported and folded by the explorer', async () => {
    const m = await recordMetrics(run);
    const lag = await admin.fetchGroupLag('flowagg-explorer');
    return m.numRecordsWritten >= report.records.sent && m.numFlows === 0 && lag.every((p) => p.lag <= 1);
  }, { timeoutMs: 120_000, intervalMs: 250 });

  // Overview: the top talkers, every Pod pair and namespace pair (500 rows hold them all).
  await show(page, '#/overview?range=15m&limit=500');
  await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
  const counted = flows.filter((f) => !postSnatOnly(f));
  const wantPods = sums(counted, (f) => `${endOf(named(f, 'source'), f.sourceAddress)} → ${endOf(named(f, 'destination'), f.destinationAddress)}`);
  const gotPods = await rankedRows(page, 'Pod pairs by bytes');
  const unknown = [...gotPods.keys()].filter((k) => !wantPods.has(k));
  assert.ok(unknown.every((k) => k.startsWith('external/')) && unknown.length <= flows.filter(postSnatOnly).length, `Pod pairs the simulator did not send: ${unknown.join(', ')}`);
  assert.deepEqual([...wantPods].filter(([k, v]) => gotPods.get(k) !== v).map(([k, v]) => `${k}: sent ${v}, shown ${gotPods.get(k)}`), [], 'every Pod pair\'s bytes are the simulator\'s sums');
  const wantNamespaces = sums(flows, (f) => `${nsOf(named(f, 'source'))} → ${nsOf(named(f, 'destination'))}`);
  assert.deepEqual(await rankedRows(page, 'Namespace pairs by bytes'), new Map([...wantNamespaces].sort((a, b) => b[1] - a[1])), 'every namespace pair\'s bytes are the simulator\'s sums');

  // The dependency graph, and its edges: the namespace pairs again.
  await show(page, '#/graph?range=15m');
  await page.screenshot({ path: join(SCREENSHOTS, 'graph.png'), fullPage: true });
  assert.deepEqual(await rankedRows(page, 'Traffic between the nodes of the graph, by bytes'), new Map([...wantNamespaces].sort((a, b) => b[1] - a[1])));

  // Policy drops: every denied flow under its policy.
  await show(page, '#/drops?range=15m');
  await page.screenshot({ path: join(SCREENSHOTS, 'drops.png'), fullPage: true });
  const denied = flows.filter((f) => f.ends.policy !== undefined);
  assert.ok(denied.length >= 5, `${denied.length} denied flows sent`);
  for (const f of denied) {
    const policy = `${f.ends.policy!.namespace}/${f.ends.policy!.name}`;
    const listed = await page.$(`article.rule[data-policy="${policy}"] a[title="${tupleText(f)}"]`);
    assert.ok(listed !== null, `flow ${f.flow} (${f.kind}, ${tupleText(f)}) is listed under ${policy}`);
  }

  // Flow search: a Pod's flows, the Pod at either end.
  const interNode = flows.find((f) => f.kind === 'interNode' && f.source !== undefined && f.destination !== undefined)!;
  const podName = `${interNode.ends.source!.namespace}/${interNode.ends.source!.name}`;
  await show(page, `#/flows?range=15m&pod=${encodeURIComponent(podName)}`);
  await page.screenshot({ path: join(SCREENSHOTS, 'flows.png'), fullPage: true });
  const ofPod = flows.filter((f) => !postSnatOnly(f) && (['source', 'destination'] as const).some((side) => { const p = named(f, side); return p !== undefined && `${p.namespace}/${p.name}` === podName; }));
  const rowTuples = new Set(await page.$$eval('table tbody a[title]', (links) => links.map((a) => a.getAttribute('title'))));
  assert.deepEqual([...rowTuples].sort(), ofPod.map(tupleText).sort(), `the search finds the flows of ${podName}`);

  // A row opens the flow; its path link shows both Nodes, each with what it sent.
  await page.click(`table tbody a[title="${tupleText(interNode)}"]`);
  await rendered(page, 'view', 'flow');
  await page.screenshot({ path: join(SCREENSHOTS, 'flow.png'), fullPage: true });
  await page.click('text=Every observation point of this flow');
  await rendered(page, 'view', 'path');
  await page.screenshot({ path: join(SCREENSHOTS, 'path.png'), fullPage: true });
  const points = await page.$$eval('article.point', (cards) => cards.map((c) => [c.querySelector('h3')!.textContent, Number(c.querySelector('dd.bytes data')!.getAttribute('value'))]));
  const half = (h: NonNullable<FlowSums['source']>) => h.octetDeltaCount + h.reverseOctetDeltaCount;
  assert.deepEqual(points.sort(), [[`Node ${interNode.source!.node}`, half(interNode.source!)], [`Node ${interNode.destination!.node}`, half(interNode.destination!)]].sort(), 'the path view shows both Nodes of the inter-Node flow');

  // On a phone's screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await show(page, '#/overview?range=15m&phone=1');
  await page.screenshot({ path: join(SCREENSHOTS, 'overview-phone.png'), fullPage: true });

  assert.deepEqual(outside, [], 'the page asks nothing of any other server');
  assert.deepEqual(errors, [], 'the page logs no error');
  await browser.close();
  await stopRun(run);
  console.log(`screenshots in ${SCREENSHOTS}`);
});
