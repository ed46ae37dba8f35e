// One phase of the end-to-end benchmark, on a fresh `flowagg run` (its own directory and embedded log):
// the IPFIX exporter to a collector process that stamps what it receives, the Agents (`flowagg simulate`)
// in a process of their own, /metrics sampled every second from the Agents' start until everything they
// sent has been exported and the last flows have expired; then the collector's file read back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IpfixCollector } from '../../integration-tests/chaos/testing/collector.js';
import { EPHEMERAL_RUN_ENV, type Run, startRun, stopRun } from '../../integration-tests/harness/flowagg-run.js';
import { freePort } from '../../integration-tests/harness/ports.js';
import { untilHolds } from '../../lib/testing/until.js';
import type { SimulationReport } from '../../simulate/report.js';
import { startSimulator } from '../simulator.js';
import { readReceipts, type Receipts } from './receipts.js';
import { sample, type Sample, sampleEvery } from './sampler.js';

/** Antrea's timeouts of the figures this is compared with (issue 18). */
export const ACTIVE_S = 5;
export const INACTIVE_S = 10;

export interface PhaseRun {
  readonly report: SimulationReport;
  /** Before the Agents started (idle), then every second; `sentAt` and `drainedAt` index into samples. */
  readonly idle: Sample;
  readonly samples: readonly Sample[];
  readonly sentAt: number;
  readonly drainedAt: number;
  readonly receipts: Receipts;
}

const drained = (s: Sample, sent: number) => s.written >= sent && s.ingestLag === 0 && s.processorLag <= 0 && s.exportLag === 0;

/** `agents`: what `flowagg simulate` is told besides where to send (transport, Nodes, flows, how long). */
export async function runPhase(transport: 'tcp' | 'grpc', agents: readonly string[]): Promise<PhaseRun> {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-e2e-'));
  const collector = new IpfixCollector(await freePort(), join(dir, 'collector.ipfix'), true);
  let run: Run | undefined;
  try {
    await collector.start();
    run = await startRun(dir, {
      env: {
        ...EPHEMERAL_RUN_ENV, FLOWAGG_CFG_ACTIVEFLOWRECORDTIMEOUT: `${ACTIVE_S}s`, FLOWAGG_CFG_INACTIVEFLOWRECORDTIMEOUT: `${INACTIVE_S}s`,
        // Antrea's work: collect, aggregate, export over IPFIX; no flow log, no explorer.
        FLOWAGG_CFG_FLOWLOGGER_ENABLE: 'false', FLOWAGG_CFG_EXPLORER_ENABLE: 'false',
        FLOWAGG_CFG_FLOWCOLLECTOR_ENABLE: 'true', FLOWAGG_CFG_FLOWCOLLECTOR_ADDRESS: `127.0.0.1:${collector.port}:tcp`,
      },
    });
    const live = run;
    const idle = await sample(live);
    const target = transport === 'grpc' ? ['--target', `127.0.0.1:${live.collectors.grpc}`, '--tls-dir', join(dir, 'data', 'tls')] : ['--target', `127.0.0.1:${live.tcpPort}`];
    const sampler = sampleEvery(live);
    const report = await startSimulator(['--transport', transport, ...target, '--connect-timeout', '60s', '-q', ...agents]).report;
    const sentAt = sampler.samples.length;
    await untilHolds('everything sent to be exported', () => sample(live), (s) => drained(s, report.records.sent), { timeoutMs: 600_000, intervalMs: 1000 });
    const drainedAt = sampler.samples.length;
    // The flows still held expire an inactive timeout after their last record, and are exported then.
    await new Promise((r) => setTimeout(r, (ACTIVE_S + INACTIVE_S + 2) * 1000));
    const samples = await sampler.stop();
    await stopRun(live);
    run = undefined;
    await collector.stop();
    return { report, idle, samples, sentAt, drainedAt, receipts: await readReceipts(collector.file, samples[0]!.at) };
  } finally {
    if (run !== undefined) await stopRun(run).catch(() => {});
    await collector.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
