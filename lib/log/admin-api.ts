// The message log's admin operations over the HTTP API of the process that holds an embedded log, as
// antctl talks to the FlowAggregator's API server. The embedded log can be open in one process only (its
// lock); while `flowagg run` holds it, `flowagg offsets` reaches it through this API instead.
//
// The holder writes `<dir>/.api.json` (mode 0600: its URL, a random bearer token and its pid) and
// removes it on stop. Reading that file is the permission to use the API, so the API is as private as
// the log directory, whatever address the HTTP server binds.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlowaggError, errorMessage, isFlowaggError } from '../errors.js';
import { type TelemetryServer } from '../telemetry/http.js';
import { LOG_API_FAILED, LOG_GROUP_ACTIVE } from './errors.js';
import { type Admin } from './types.js';

export const LOG_API_PATH = '/api/v1/log/admin';
const API_FILE = '.api.json';

/** The admin methods the API serves: reading offsets and moving a group's. Creating topics stays local. */
const METHODS = ['listTopics', 'fetchTopicOffsets', 'fetchOffsetsByTimestamp', 'listGroups', 'fetchGroupLag', 'resetGroupOffsets'] as const;
type Method = (typeof METHODS)[number];

export interface LogApiAddress {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Serves `admin` on the HTTP server; returns the token a client must present. */
export function serveLogAdmin(http: TelemetryServer, admin: Admin): string {
  const token = randomBytes(32).toString('hex');
  http.addPostRoute(LOG_API_PATH, async (body, headers) => {
    if (!tokenMatches(headers.authorization, token)) return { status: 401, body: { error: 'a valid bearer token is required (see .api.json in the log directory)' } };
    const { method, args } = (body ?? {}) as { method?: unknown; args?: unknown };
    if (!METHODS.includes(method as Method) || !Array.isArray(args)) {
      return { status: 400, body: { error: `method must be one of ${METHODS.join(', ')}, with args a list` } };
    }
    try {
      const call = admin[method as Method] as (...a: unknown[]) => Promise<unknown>;
      return { status: 200, body: { result: await call.apply(admin, args) } };
    } catch (err) {
      const code = isFlowaggError(err) ? err.code : undefined;
      return { status: code === LOG_GROUP_ACTIVE ? 409 : code === undefined ? 500 : 400, body: { error: errorMessage(err), code } };
    }
  });
  return token;
}

/** Writes the discovery file; returns what removes it. */
export function publishLogApi(dir: string, address: Omit<LogApiAddress, 'pid'>): () => void {
  const path = join(dir, API_FILE);
  writeFileSync(path, JSON.stringify({ ...address, pid: process.pid }), { mode: 0o600 });
  return () => rmSync(path, { force: true });
}

export function readLogApi(dir: string): LogApiAddress | undefined {
  try {
    const a = JSON.parse(readFileSync(join(dir, API_FILE), 'utf8')) as Partial<LogApiAddress>;
    return typeof a.url === 'string' && typeof a.token === 'string' && typeof a.pid === 'number' ? (a as LogApiAddress) : undefined;
  } catch {
    return undefined;
  }
}

/** An Admin whose every call goes to the log API of another process. */
export function remoteAdmin(api: LogApiAddress, timeoutMs = 30_000): Admin {
  const call = async (method: Method | 'createTopics', args: unknown[]): Promise<never> => {
    let res: Response;
    try {
      res = await fetch(new URL(LOG_API_PATH, api.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ method, args }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new FlowaggError(LOG_API_FAILED, `cannot reach the log API of process ${api.pid} at ${api.url}: ${errorMessage(err)}`, { cause: err, retriable: true });
    }
    const body = (await res.json().catch(() => ({}))) as { result?: unknown; error?: string; code?: string };
    if (res.ok) return body.result as never;
    const code = body.code?.startsWith('FLOWAGG_ERR_') ? (body.code as `FLOWAGG_ERR_${string}`) : LOG_API_FAILED;
    throw new FlowaggError(code, body.error ?? `log API answered ${res.status}`, { context: { status: res.status, pid: api.pid } });
  };
  return {
    createTopics: (...a) => call('createTopics', a),
    listTopics: (...a) => call('listTopics', a),
    fetchTopicOffsets: (...a) => call('fetchTopicOffsets', a),
    fetchOffsetsByTimestamp: (...a) => call('fetchOffsetsByTimestamp', a),
    listGroups: (...a) => call('listGroups', a),
    fetchGroupLag: (...a) => call('fetchGroupLag', a),
    resetGroupOffsets: (...a) => call('resetGroupOffsets', a),
  };
}
