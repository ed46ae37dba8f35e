// The API server of every service: /metrics (Prometheus), /healthz and /livez (the process is alive),
// /readyz (every registered readiness check passes), plus the routes a service adds (/flowrecords, ...)
// and static files (the flow explorer's page).
// Plain HTTP or HTTPS; with a guard (lib/apiserver/guard.ts) every request but the health checks is
// authenticated and authorized before its route runs. An unknown path is answered 404, and a known one
// with a method it does not take 405, before the guard: the reviews the guard may ask of Kubernetes are
// then only ever about the few real routes. Connections are bounded in number, per client address, and
// in time (headers, whole request, TLS handshake, idle keep-alive).
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { ConnectionAdmission } from '../listeners/admission.js';
import { apiMetrics } from '../apiserver/metrics.js';
import { processMetrics } from './metrics.js';

export type ReadinessCheck = () => { ready: boolean; detail?: string };
export type JsonRoute = (url: URL, req: IncomingMessage) => unknown | Promise<unknown>;

/** A file served as it is, for GET. */
export interface StaticFile {
  readonly contentType: string;
  readonly body: Buffer;
}

// The page may load and ask nothing but this server (no CDN, no other origin).
const STATIC_HEADERS = { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'" };

/** A POST route: its JSON body in, a status and JSON body out. Bodies above MAX_BODY_BYTES are refused. */
export type PostRoute = (body: unknown, headers: IncomingMessage['headers']) => Promise<{ status: number; body: unknown }>;

/** Why a request may not reach its route: the status and body to answer with. */
export interface Denial {
  readonly status: number;
  readonly body: unknown;
}

/** Decides whether a request may reach its route; undefined lets it through. */
export type RequestGuard = (req: IncomingMessage, url: URL) => Promise<Denial | undefined>;

export interface ListenOptions {
  readonly port: number;
  /** Default: every address. */
  readonly host?: string;
  /** HTTPS with these options (certificate, key, minVersion, ciphers); plain HTTP without. */
  readonly tls?: TlsOptions;
  readonly guard?: RequestGuard;
}

/** Answered without the guard, as Antrea's API server always allows them (kubelet probes carry no token). */
const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz']);

const MAX_BODY_BYTES = 64 * 1024;
const LIMITS = { maxConnections: 256, maxPerSource: 32, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, handshakeTimeoutMs: 10_000 };

type Handler = (req: IncomingMessage, url: URL) => Promise<{ status: number; body: unknown; close?: boolean }>;

export class TelemetryServer {
  readonly #checks = new Map<string, ReadinessCheck>();
  /** Per path, per method. */
  readonly #routes = new Map<string, Map<string, Handler>>();
  /** Static files, answered without the guard: they hold no data, and a browser cannot attach a token
   * to the page it first loads (the page then sends one with its API calls). */
  readonly #open = new Set<string>(HEALTH_PATHS);
  #server: Server | HttpsServer | undefined;
  #guard: RequestGuard | undefined;

  constructor() {
    this.addJsonRoute('/metrics', async () => {
      const metrics = await processMetrics();
      return new Raw(metrics.contentType, await metrics.metrics());
    });
    for (const path of ['/healthz', '/livez']) this.addJsonRoute(path, () => ({ status: 'ok' }));
    this.#add('GET', '/readyz', async () => {
      const r = this.readiness();
      return { status: r.ready ? 200 : 503, body: r };
    });
  }

  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  /** A GET (and HEAD) route answering 200 with what it returns. */
  addJsonRoute(path: string, route: JsonRoute): void {
    const handler: Handler = async (req, url) => ({ status: 200, body: await route(url, req) });
    this.#add('GET', path, handler);
    this.#add('HEAD', path, handler);
  }

  /** A PUT route answering 200 with what it returns; its body is not read. */
  addPutRoute(path: string, route: JsonRoute): void {
    this.#add('PUT', path, async (req, url) => ({ status: 200, body: await route(url, req) }));
  }

  addStaticRoute(path: string, file: StaticFile): void {
    this.#add('GET', path, async () => ({ status: 200, body: new Raw(file.contentType, file.body, STATIC_HEADERS) }));
    this.#open.add(path);
  }

  addPostRoute(path: string, route: PostRoute): void {
    this.#add('POST', path, async (req) => {
      const body = await readJsonBody(req);
      // Answered with Connection: close: the rest of a body too large is never read.
      if (body.kind === 'error') return { status: body.status, body: { error: body.message }, close: true };
      return route(body.value, req.headers);
    });
  }

  readiness(): { ready: boolean; checks: Record<string, { ready: boolean; detail?: string }> } {
    const checks: Record<string, { ready: boolean; detail?: string }> = {};
    let ready = true;
    for (const [name, check] of this.#checks) {
      const r = check();
      checks[name] = r;
      ready &&= r.ready;
    }
    return { ready, checks };
  }

  async listen(opts: ListenOptions): Promise<number> {
    this.#guard = opts.guard;
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res);
    const server = opts.tls === undefined ? createHttpServer(handle) : createHttpsServer({ ...opts.tls, handshakeTimeout: LIMITS.handshakeTimeoutMs }, handle);
    server.headersTimeout = LIMITS.headersTimeoutMs;
    server.requestTimeout = LIMITS.requestTimeoutMs;
    const admission = new ConnectionAdmission({ maxConnections: LIMITS.maxConnections, maxPerSource: LIMITS.maxPerSource, reservedForKnown: 0 });
    server.on('connection', (socket: Socket) => {
      const admitted = admission.admit(socket.remoteAddress ?? '');
      if (!admitted.admitted) return void socket.destroy();
      socket.once('close', () => admitted.release());
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  /** New certificate and key for connections from now on (a rotated certificate file). */
  setSecureContext(options: SecureContextOptions): void {
    const server = this.#server;
    if (server !== undefined && 'setSecureContext' in server) server.setSecureContext(options);
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #add(method: string, path: string, handler: Handler): void {
    const methods = this.#routes.get(path) ?? new Map<string, Handler>();
    methods.set(method, handler);
    this.#routes.set(path, methods);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.once('finish', () => apiMetrics.requests.inc({ code: String(res.statusCode) }));
    try {
      const methods = this.#routes.get(url.pathname);
      if (methods === undefined) return send(res, 404, { error: `no route ${url.pathname}` });
      const handler = methods.get(req.method ?? 'GET');
      if (handler === undefined) {
        res.setHeader('allow', [...methods.keys()].join(', '));
        return send(res, 405, { error: `${url.pathname} does not take ${req.method}: ${[...methods.keys()].join(', ')}` });
      }
      const denial = this.#open.has(url.pathname) ? undefined : await this.#guard?.(req, url);
      if (denial !== undefined) return send(res, denial.status, denial.body);
      const answer = await handler(req, url);
      if (answer.close === true) res.setHeader('connection', 'close');
      send(res, answer.status, answer.body);
    } catch (err) {
      // A route refuses a bad request by throwing an error with an HTTP `status` (400); anything else is a 500.
      const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
      send(res, status, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

/** A body sent as it is, not as JSON (the Prometheus exposition, a static file). */
class Raw {
  constructor(
    readonly contentType: string,
    readonly text: string | Buffer,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** What a route returns to answer with an empty body (Antrea's PUT /loglevel). */
export const NO_BODY: unknown = new Raw('text/plain; charset=utf-8', '');

async function readJsonBody(req: IncomingMessage): Promise<{ kind: 'ok'; value: unknown } | { kind: 'error'; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { kind: 'error', status: 413, message: `request body larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  try {
    return { kind: 'ok', value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch (err) {
    return { kind: 'error', status: 400, message: `request body is not JSON: ${(err as Error).message}` };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (body instanceof Raw) {
    res.writeHead(status, { 'content-type': body.contentType, ...body.headers });
    return void res.end(body.text);
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}
