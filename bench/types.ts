// What every benchmark file (bench/*.bench.ts) exports as default: a function that runs its cases and
// returns one result per measured figure. bench/run.ts runs them and records the figures.

export interface BenchResult {
  /** e.g. "ipfix decode, Antrea agent template (43 IEs)" */
  readonly name: string;
  readonly value: number;
  /** e.g. "records/s" */
  readonly unit: string;
  /** The target, in the same unit, when there is one (higher is better). */
  readonly target?: number;
  /** Anything a reader needs to interpret the figure: record size, batch size, durability mode. */
  readonly note?: string;
}

export type Benchmark = (log: (line: string) => void) => Promise<BenchResult[]>;

/** Runs fn repeatedly for at least minMs after a warm-up, and returns operations per second. */
export async function measure(fn: () => void | Promise<void>, opsPerCall: number, minMs = 2000, warmupMs = 500): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const until = (ms: number) => performance.now() + ms;
  for (const end = until(warmupMs); performance.now() < end; ) await fn();
  gc?.();
  let calls = 0;
  const start = performance.now();
  const end = start + minMs;
  while (performance.now() < end) {
    await fn();
    calls++;
  }
  return (calls * opsPerCall * 1000) / (performance.now() - start);
}

/** Records/s of wall time (measure()) and per CPU-second of this process, the steadier figure on a shared machine. */
export async function measureCpu(fn: () => void, records: number, minMs?: number): Promise<{ wall: number; cpu: number }> {
  let cpuSeconds = 0;
  let calls = 0;
  const wall = await measure(() => {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    cpuSeconds += (c.user + c.system) / 1e6;
    calls++;
  }, records, minMs);
  return { wall, cpu: (calls * records) / cpuSeconds };
}

/** What one run cost: records per second of CPU and of wall time, and how much of that CPU was the kernel's. */
export interface CpuSplit {
  readonly perCpuSecond: number;
  readonly perWallSecond: number;
  /** The kernel's share of the CPU time (system over user + system). */
  readonly kernelShare: number;
}

/** Records per CPU-second and per wall-second of one run of `work` over `records`, with the kernel's share of that CPU. */
export async function cpuOfRun(records: number, work: () => Promise<void>): Promise<CpuSplit> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return { perCpuSecond: (records * 1000) / cpuMs, perWallSecond: (records * 1000) / wallMs, kernelShare: kernelShare(used) };
}

/** The kernel's share of CPU time used (system over user + system). */
export function kernelShare(used: NodeJS.CpuUsage): number {
  return used.system / (used.user + used.system);
}
