// One service of the deployed shape, run the way Kubernetes runs a Pod: `flowagg <argv>` as a process of its
// own (bin/flowagg.js), started again after a backoff when it exits on its own (a crash loop: 1 s doubling to
// 10 s), and, for the chaos, killed (and started again after a delay), stalled (SIGSTOP, SIGCONT) or stopped.
// Exits the test did not cause are kept with the end of their log, for the verdict to judge.
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiRequest } from '../../../lib/apiserver/client.js';
import { type FlowaggChild, startFlowagg } from '../../harness/crash-loop.js';
import { freePort } from '../../harness/ports.js';

export interface PodSpec {
  readonly name: string;
  readonly argv: readonly string[];
  /** What the service logs once it runs. */
  readonly readyMessage: string;
  readonly env: NodeJS.ProcessEnv;
  /** Its apiServer port (HTTPS, as deployed): /metrics, /readyz, /recordmetrics. */
  readonly httpPort: number;
  /** Where each run writes its loopback token (apiServer.loopbackTokenFile). */
  readonly tokenFile: string;
}

export interface PodExit {
  /** ms since the epoch */
  readonly at: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Whether that run had come up. */
  readonly wasReady: boolean;
  readonly logTail: string;
}

export type PodState = 'starting' | 'running' | 'stalled' | 'down' | 'stopped';

const LOG_TAIL = 3000;
/** Where a run that does not exit after SIGTERM writes its diagnostic report (what holds its event loop). */
export const REPORT_DIR = join(tmpdir(), 'flowagg-chaos-reports');
const STOP_TIMEOUT_MS = 30_000;

export class Pod {
  state: PodState = 'stopped';
  /** Exits the test did not ask for. */
  readonly crashes: PodExit[] = [];
  /** Runs started, the first included. */
  starts = 0;
  #child: FlowaggChild | undefined;
  #ready = false;
  #expected = false;
  #failures = 0;
  #restart: NodeJS.Timeout | undefined;
  readonly #logs: string[] = [];

  constructor(readonly spec: PodSpec) {}

  get name(): string {
    return this.spec.name;
  }

  /** Starts a run; resolves once it is up, rejects if it exits first (it is then started again, as a crash). */
  start(): Promise<void> {
    clearTimeout(this.#restart);
    mkdirSync(REPORT_DIR, { recursive: true });
    const report = `--report-on-signal --report-signal=SIGUSR2 --report-directory=${REPORT_DIR}`;
    const child = (this.#child = startFlowagg(this.spec.argv, this.spec.readyMessage, { NODE_OPTIONS: report, ...this.spec.env }));
    this.#expected = false;
    this.#ready = false;
    this.state = 'starting';
    this.starts++;
    void child.ready.then(() => {
      if (this.#child !== child) return;
      this.#ready = true;
      this.#failures = 0;
      if (this.state === 'starting') this.state = 'running';
    }, () => {});
    void child.exited.then(({ code, signal }) => this.#ended(child, code, signal));
    return child.ready;
  }

  #ended(child: FlowaggChild, code: number | null, signal: NodeJS.Signals | null): void {
    this.#logs.push(child.stderr());
    if (this.#child !== child) return;
    this.#child = undefined;
    if (this.#expected) return;
    this.crashes.push({ at: Date.now(), code, signal, wasReady: this.#ready, logTail: child.stderr().slice(-LOG_TAIL) });
    this.state = 'down';
    const delay = Math.min(10_000, 1000 * 2 ** this.#failures++);
    this.#restart = setTimeout(() => void this.start().catch(() => {}), delay);
  }

  /** SIGKILL, and a new run `restartAfterMs` later. False when the pod was not running (nor starting, with `starting`). */
  async kill(restartAfterMs: number, opts: { starting?: boolean } = {}): Promise<boolean> {
    const child = this.#child;
    if (!(this.state === 'running' || (opts.starting === true && this.state === 'starting')) || child === undefined) return false;
    this.#expected = true;
    child.process.kill('SIGKILL');
    await child.exited;
    this.state = 'down';
    this.#restart = setTimeout(() => void this.start().catch(() => {}), restartAfterMs);
    return true;
  }

  /** SIGSTOP for `ms`, then SIGCONT. False when the pod was not running. */
  async stall(ms: number): Promise<boolean> {
    const child = this.#child;
    if (this.state !== 'running' || child === undefined) return false;
    child.process.kill('SIGSTOP');
    this.state = 'stalled';
    await sleep(ms);
    child.process.kill('SIGCONT');
    if (this.#child === child && this.state === 'stalled') this.state = 'running';
    return true;
  }

  /**
   * SIGTERM (after SIGCONT, if stalled), no new run; resolves with the exit status, or 'hung' when the run
   * had not exited 30 s later (it is SIGKILLed then).
   */
  async stop(): Promise<number | null | 'hung'> {
    clearTimeout(this.#restart);
    const child = this.#child;
    this.state = 'stopped';
    if (child === undefined) return 0;
    this.#expected = true;
    child.process.kill('SIGCONT');
    child.process.kill('SIGTERM');
    const exit = await Promise.race([child.exited, sleep(STOP_TIMEOUT_MS).then(() => 'hung' as const)]);
    if (exit !== 'hung') return exit.code;
    // Node writes a diagnostic report (stack, open handles) to REPORT_DIR on SIGUSR2 (see start()).
    child.process.kill('SIGUSR2');
    await sleep(2000);
    child.process.kill('SIGKILL');
    await child.exited;
    return 'hung';
  }

  /** What every run wrote on stderr, the current one's so far. */
  logs(): string[] {
    return this.#child === undefined ? [...this.#logs] : [...this.#logs, this.#child.stderr()];
  }

  /** A GET on the current run's API with its loopback token, not verifying its self-signed certificate (as antctl in the Pod). */
  async get(path: string): Promise<string> {
    const token = (await readFile(this.spec.tokenFile, 'utf8')).trim();
    const res = await apiRequest({ url: `https://127.0.0.1:${this.spec.httpPort}`, token, insecure: true }, path, { timeoutMs: 5000 });
    if (res.status !== 200) throw new Error(`${this.name} ${path}: status ${res.status}`);
    return res.text;
  }
}

/** A pod whose run serves its API on `httpPort` (a free port by default) and writes its loopback token in `dir`. */
export async function servicePod(o: { name: string; dir: string; argv: readonly string[]; readyMessage: string; env?: NodeJS.ProcessEnv; httpPort?: number }): Promise<Pod> {
  const httpPort = o.httpPort ?? (await freePort());
  const tokenFile = join(o.dir, `${o.name}.token`);
  const apiEnv = { FLOWAGG_CFG_APISERVER_APIPORT: String(httpPort), FLOWAGG_CFG_APISERVER_LOOPBACKTOKENFILE: tokenFile };
  return new Pod({ name: o.name, argv: o.argv, readyMessage: o.readyMessage, httpPort, tokenFile, env: { ...apiEnv, ...o.env } });
}
