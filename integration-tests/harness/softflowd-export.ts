// One softflowd export end to end: generated traffic written to a pcap, softflowd run over it towards a
// collector, and the records it must have exported. Tests that own their collector (the ingest tests)
// use writeTrafficPcap + runSoftflowd + expectedExport; the interop tests use exportTraffic.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CollectedMessage, startTcpCollector, startUdpCollector } from './collector.js';
import { writePcap } from '../../lib/capture/testing/pcap-files.js';
import { runSoftflowd, type SoftflowdRun, type SoftflowdTimeFormat, type SoftflowdVersion } from './softflowd.js';
import { type ExpectedRecord, expectedSoftflowdRecords, softflowdTimeUs } from './softflowd-flows.js';
import type { Traffic } from './traffic.js';

export interface ExportOptions {
  readonly transport: 'udp' | 'tcp';
  readonly bidirectional: boolean;
  readonly timeFormat: SoftflowdTimeFormat;
  /** `-v` (default 10, IPFIX); v5's times are always sysUpTime ones, whatever timeFormat says (v9 follows it). */
  readonly version?: SoftflowdVersion;
  readonly signal?: AbortSignal;
}

export interface TrafficExport {
  readonly run: SoftflowdRun;
  /** Export messages in arrival order. */
  readonly messages: readonly CollectedMessage[];
  readonly expected: ExpectedRecord[];
}

/** Writes the traffic to `<dir>/traffic.pcap` and returns the path. */
export async function writeTrafficPcap(traffic: Traffic, dir: string): Promise<string> {
  const path = join(dir, 'traffic.pcap');
  await writeFile(path, writePcap(traffic.packets));
  return path;
}

/**
 * The flow records softflowd must export for this traffic, times as it encodes them for the format. In
 * NetFlow, as a collector reads it: v5 carries IPv4 flows only (softflowd -v 5 ignores IPv6 packets) and puts
 * an ICMP type and code in the destination port (Cisco's convention); it has no IP version field either.
 */
export function expectedExport(traffic: Traffic, opts: Pick<ExportOptions, 'bidirectional' | 'timeFormat' | 'version'>): ExpectedRecord[] {
  const bootUs = traffic.packets[0]?.timeUs ?? 0;
  const format = opts.version === 5 ? 'sysUpTime' : opts.timeFormat;
  const records = expectedSoftflowdRecords(traffic.conversations, opts.bidirectional).map((r) => ({
    ...r,
    startUs: softflowdTimeUs(r.startUs, format, bootUs),
    endUs: softflowdTimeUs(r.endUs, format, bootUs),
  }));
  if (opts.version !== 5) return records;
  return records
    .filter((r) => r.ipVersion === 4)
    .map((r) => ({ ...r, dstPort: r.proto === 1 ? r.icmpTypeCode : r.dstPort, icmpTypeCode: 0 }));
}

/** Runs softflowd over the traffic into a collector of the given transport and returns what arrived. */
export async function exportTraffic(traffic: Traffic, opts: ExportOptions): Promise<TrafficExport> {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-export-'));
  const collector = opts.transport === 'udp' ? await startUdpCollector() : await startTcpCollector();
  try {
    const pcapPath = await writeTrafficPcap(traffic, dir);
    const run = await runSoftflowd({ pcapPath, collector, ...opts });
    const messages = await collector.waitForMessages(run.stats.messagesSent, 10_000);
    return { run, messages: [...messages], expected: expectedExport(traffic, opts) };
  } finally {
    await collector.close();
    await rm(dir, { recursive: true, force: true });
  }
}
