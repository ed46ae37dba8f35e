// A client of a running flowagg's API, for the commands that talk to it (flowagg get, flowagg offsets)
// and for tests: plain HTTP or HTTPS, a bearer token, and for HTTPS either a CA to verify the server
// with (the self-signed one the server published) or, as antctl does in the FlowAggregator Pod, no
// verification at all (`insecure`). node:http(s) rather than fetch, which cannot be given a CA.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { FlowaggError, errorMessage } from '../errors.js';
import { API_REQUEST } from './errors.js';

export interface ApiTarget {
  /** http://host:port or https://host:port */
  readonly url: string;
  readonly token?: string;
  readonly ca?: string;
  readonly insecure?: boolean;
}

export interface ApiResponse {
  readonly status: number;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  readonly json: unknown;
}

export interface ApiRequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly timeoutMs?: number;
}

/** /flowrecords can be large (10,000 flows by default); this bounds what one answer may hold. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export async function apiRequest(target: ApiTarget, path: string, opts: ApiRequestOptions = {}): Promise<ApiResponse> {
  const url = new URL(path, target.url);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const tls = url.protocol === 'https:' ? { ...(target.ca !== undefined && { ca: target.ca }), rejectUnauthorized: target.insecure !== true } : {};
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  try {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      // agent false: a connection of its own, closed after the answer (a command makes few requests).
      const req = send(url, { method: opts.method ?? 'GET', headers, agent: false, timeout: opts.timeoutMs ?? 30_000, ...tls }, resolve);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 30_000} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
    const text = await readBody(res);
    return { status: res.statusCode ?? 0, text, json: parseJson(text) };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause ?? err;
    throw new FlowaggError(API_REQUEST, `cannot reach ${url.origin}${url.pathname}: ${errorMessage(cause)}`, { cause: err, retriable: true, context: { url: url.href } });
  }
}

/** What an error answer says: flowagg's {error} or a Kubernetes Status's message. */
export function answerError(res: ApiResponse): string {
  const body = res.json as { error?: unknown; message?: unknown } | undefined;
  const said = typeof body?.error === 'string' ? body.error : typeof body?.message === 'string' ? body.message : res.text.trim();
  return said === '' ? `status ${res.status}` : `status ${res.status}: ${said}`;
}

async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      res.destroy();
      throw new Error(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
