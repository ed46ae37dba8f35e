// The message log's admin operations over the HTTP API of the process that holds an embedded log, as
// antctl talks to the FlowAggregator's API server. The embedded log can be open in one process only (its
// lock); while `flowagg run` holds it, `flowagg offsets` reaches it through this API instead.
//
// The holder writes `<dir>/.api.json` (mode 0600: its URL, its bearer token, the CA of its self-signed
// certificate when it has one, and its pid) and removes it on stop. Reading that file is the permission
// to use the API, so the API is as private as the log directory, whatever address the server binds.
// The token is the API server's loopback token; over plain HTTP, where the server authenticates
// nobody, this route still asks for it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bearerToken } from '../apiserver/authenticate.js';
import { type ApiTarget, answerError, apiRequest } from '../apiserver/client.js';
import { isToken } from '../apiserver/loopback-token.js';
import { FlowaggError, errorMessage, isFlowaggError } from '../errors.js';
import type { TelemetryServer } from '../telemetry/http.js';
import { LOG_API_FAILED, LOG_GROUP_ACTIVE } from './errors.js';
import type { Admin } from './types.js';

export const LOG_API_PATH = '/api/v1/log/admin';
const API_FILE = '.api.json';

/** The admin methods the API serves: reading offsets and moving a group's. Creating topics stays local. */
const METHODS = ['listTopics', 'fetchTopicOffsets', 'fetchOffsetsByTimestamp', 'listGroups', 'fetchGroupLag', 'resetGroupOffsets'] as const;
type Method = (typeof METHODS)[number];

export interface LogApiAddress {
  readonly url: string;
  readonly token: string;
  /** The CA of the server's self-signed certificate (https). */
  readonly ca?: string;
  readonly pid: number;
}

/** Serves `admin` on the API server to clients presenting `token`. */
export function serveLogAdmin(http: TelemetryServer, admin: Admin, token: string): void {
  http.addPostRoute(LOG_API_PATH, async (body, headers) => {
    const given = bearerToken(headers.authorization);
    if (given === undefined || !isToken(given, token)) return { status: 401, body: { error: 'a valid bearer token is required (see .api.json in the log directory)' } };
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
    const valid = typeof a.url === 'string' && typeof a.token === 'string' && typeof a.pid === 'number' && (a.ca === undefined || typeof a.ca === 'string');
    return valid ? (a as LogApiAddress) : undefined;
  } catch {
    return undefined;
  }
}

/** How a client reaches the API of the process that wrote `api`: its URL and token, verified with its CA. */
export function apiTargetOf(api: LogApiAddress): ApiTarget {
  return { url: api.url, token: api.token, ...(api.ca !== undefined && { ca: api.ca }) };
}

/** An Admin whose every call goes to the log API of another process. */
export function remoteAdmin(api: LogApiAddress, timeoutMs = 30_000): Admin {
  const call = async (method: Method | 'createTopics', args: unknown[]): Promise<never> => {
    let res;
    try {
      res = await apiRequest(apiTargetOf(api), LOG_API_PATH, { method: 'POST', body: { method, args }, timeoutMs });
    } catch (err) {
      throw new FlowaggError(LOG_API_FAILED, `cannot reach the log API of process ${api.pid} at ${api.url}: ${errorMessage(err)}`, { cause: err, retriable: true });
    }
    const body = (res.json ?? {}) as { result?: unknown; error?: unknown; code?: string };
    if (res.status === 200) return body.result as never;
    const code = body.code?.startsWith('FLOWAGG_ERR_') ? (body.code as `FLOWAGG_ERR_${string}`) : LOG_API_FAILED;
    throw new FlowaggError(code, typeof body.error === 'string' ? body.error : `the log API answered ${answerError(res)}`, { context: { status: res.status, pid: api.pid } });
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
