// Test helper: `flowagg export KIND` in-process, watched through /readyz until the exporter's check says
// what the test waits for, then stopped as a signal stops it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfig } from '../../../lib/config/load.js';
import { until } from '../../../lib/testing/until.js';
import { serve } from '../../serve.js';
import { serviceConfigSchema } from '../../service-config.js';

export interface Readyz {
  readonly status: number;
  readonly checks: Record<string, { ready: boolean; detail?: string }>;
}

/** The start of an exporter's readiness detail while its destination does not answer, as a RegExp source. */
export const UNREACHABLE_SINCE = 'destination unreachable since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, retrying: ';

/**
 * Runs `flowagg export KIND` with its section enabled and `overrides` (its embedded log under `dir`) until
 * /readyz's check of the exporter has a detail matching `detail`; then stops it and returns that answer
 * with the exit status.
 */
export async function exportUntil(dir: string, kind: string, section: string, overrides: Record<string, unknown>, detail: RegExp): Promise<{ readyz: Readyz; code: number }> {
  const config = loadConfig(serviceConfigSchema, {
    env: {},
    overrides: { 'log.embedded.dir': join(dir, `log-${kind}-${Math.random().toString(36).slice(2)}`), 'apiServer.apiPort': 0, 'apiServer.bindAddress': '127.0.0.1', 'apiServer.protocol': 'http', [`${section}.enable`]: true, ...overrides },
  });
  const stop = new AbortController();
  let started: (port: number) => void = () => {};
  const http = new Promise<number>((resolve) => (started = resolve));
  const running = serve(config, { command: `export ${kind}`, ingest: false, exporters: [kind], signal: stop.signal, onStarted: (p) => started(p.http) });
  try {
    const port = await Promise.race([http, running.then((code) => assert.fail(`flowagg export ${kind} ended with ${code} before it ran`))]);
    const readyz = await until(`/readyz detail of export.${kind} matching ${detail}`, async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      const r = { status: res.status, checks: ((await res.json()) as Readyz).checks };
      return detail.test(r.checks[`export.${kind}`]?.detail ?? '') && r;
    });
    stop.abort();
    return { readyz, code: await running };
  } finally {
    stop.abort();
    await running.catch(() => undefined);
  }
}
