// Runs softflowd (https://github.com/irino/softflowd, Debian package 1.1.0) over a pcap file, exporting
// IPFIX to a collector the test owns, and returns the statistics softflowd prints when it exits: the
// number of flows and data records it exported is what the receiving side must account for.
//
// In `-r` mode softflowd reads the file, expires every flow at EOF, sends the export messages and exits
// (in milliseconds for small captures); the run is still bounded by a timeout that kills it. `-a` takes
// the clock from the capture, so export times and systemInitTimeMilliseconds are deterministic.
// Transports: UDP and TCP work (TCP: one connection, closed at exit; the collector must already listen,
// else softflowd exits 1 with "connect() error"); SCTP needs kernel support this machine lacks.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlowaggError } from '../../lib/errors.js';
import { HARNESS_TOOL_OUTPUT, runTool } from './tools.js';

/** `-A` values; 'sysUpTime' leaves `-A` out (flowStart/EndSysUpTime relative to systemInitTimeMilliseconds). */
export type SoftflowdTimeFormat = 'sysUpTime' | 'sec' | 'milli' | 'micro' | 'nano';

/** `-v`: NetFlow v5, NetFlow v9 or IPFIX (10, the default here). */
export type SoftflowdVersion = 5 | 9 | 10;

export interface SoftflowdOptions {
  readonly pcapPath: string;
  readonly version?: SoftflowdVersion;
  readonly collector: { readonly address: string; readonly port: number };
  readonly transport?: 'udp' | 'tcp';
  /** `-b`: one record per flow with RFC 5103 reverse elements instead of one record per direction. */
  readonly bidirectional?: boolean;
  readonly timeFormat?: SoftflowdTimeFormat;
  /** Further options, e.g. ['-m', '100000'] for captures with more flows than the default table holds. */
  readonly extraArgs?: readonly string[];
  readonly timeoutMs?: number;
  /** Kills softflowd when aborted (pass the test's `t.signal`). */
  readonly signal?: AbortSignal;
}

/** The summary softflowd prints at exit. */
export interface SoftflowdStats {
  readonly packetsProcessed: number;
  readonly flowsExpired: number;
  readonly flowsExported: number;
  /** IPFIX data records carrying flows (one per direction, or one per flow with `-b`); options records not included. */
  readonly recordsExported: number;
  /** Export messages (UDP datagrams, or messages on the TCP connection). */
  readonly messagesSent: number;
  readonly sendFailures: number;
}

export interface SoftflowdRun {
  readonly args: readonly string[];
  readonly stats: SoftflowdStats;
  readonly output: string;
}

const TIME_FORMAT_ARG: Record<SoftflowdTimeFormat, string | undefined> = {
  sysUpTime: undefined,
  sec: 'sec',
  milli: 'milli',
  micro: 'micro',
  nano: 'nano',
};

export function softflowdArgs(opts: SoftflowdOptions, stateDir: string): string[] {
  const { address, port } = opts.collector;
  const target = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
  const time = TIME_FORMAT_ARG[opts.timeFormat ?? 'milli'];
  return [
    ...['-r', opts.pcapPath, '-v', String(opts.version ?? 10), '-n', target, '-P', opts.transport ?? 'udp'],
    // Foreground, clock from the capture, no control socket (with one, `-r` mode does not exit at EOF:
    // it keeps serving softflowctl), and the pid file (unlinked at exit) away from /var/run.
    ...['-d', '-a', '-c', 'none', '-p', join(stateDir, 'softflowd.pid')],
    ...(opts.bidirectional ? ['-b'] : []),
    ...(time === undefined ? [] : ['-A', time]),
    ...(opts.extraArgs ?? []),
  ];
}

function count(output: string, pattern: RegExp, what: string): RegExpMatchArray {
  const m = output.match(pattern);
  if (m === null) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `softflowd summary has no "${what}" line:\n${output.slice(-2000)}`);
  return m;
}

/** Parses the summary softflowd prints at exit in `-r` mode. */
export function parseSoftflowdSummary(output: string): SoftflowdStats {
  const exported = count(output, /^Flows exported: (\d+) \((\d+) records\) in (\d+) packets \((\d+) failures\)/m, 'Flows exported');
  return {
    packetsProcessed: Number(count(output, /^Packets processed: (\d+)/m, 'Packets processed')[1]),
    flowsExpired: Number(count(output, /^Flows expired: (\d+)/m, 'Flows expired')[1]),
    flowsExported: Number(exported[1]),
    recordsExported: Number(exported[2]),
    messagesSent: Number(exported[3]),
    sendFailures: Number(exported[4]),
  };
}

export async function runSoftflowd(opts: SoftflowdOptions): Promise<SoftflowdRun> {
  const stateDir = await mkdtemp(join(tmpdir(), 'flowagg-softflowd-'));
  try {
    const args = softflowdArgs(opts, stateDir);
    const run = await runTool('softflowd', args, { timeoutMs: opts.timeoutMs ?? 30_000, signal: opts.signal });
    const output = `${run.stderr}${run.stdout}`;
    return { args, stats: parseSoftflowdSummary(output), output };
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** e.g. "1.1.0", from `softflowd -h`. */
export async function softflowdVersion(): Promise<string> {
  const run = await runTool('softflowd', ['-h'], { timeoutMs: 10_000, allowFailure: true });
  const m = `${run.stdout}${run.stderr}`.match(/softflowd version (\S+?)\.?\s/);
  if (m === null) throw new FlowaggError(HARNESS_TOOL_OUTPUT, 'softflowd -h does not name its version');
  return m[1] as string;
}
