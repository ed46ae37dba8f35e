// The HTTP face of every service: /metrics (Prometheus), /healthz (the process is alive), /readyz
// (every registered readiness check passes), plus JSON routes a service adds (/flowrecords, ...) and
// static files (the flow explorer's page), which carry no data.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { registry } from './metrics.js';

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

const MAX_BODY_BYTES = 64 * 1024;

export class TelemetryServer {
  readonly #checks = new Map<string, ReadinessCheck>();
  readonly #routes = new Map<string, JsonRoute>();
  readonly #posts = new Map<string, PostRoute>();
  readonly #files = new Map<string, StaticFile>();
  #server: Server | undefined;

  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  addJsonRoute(path: string, route: JsonRoute): void {
    this.#routes.set(path, route);
  }

  addPostRoute(path: string, route: PostRoute): void {
    this.#posts.set(path, route);
  }

  addStaticRoute(path: string, file: StaticFile): void {
    this.#files.set(path, file);
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

  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    const server = createServer((req, res) => void this.#handle(req, res));
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (url.pathname === '/metrics') {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(await registry.metrics());
      } else if (url.pathname === '/healthz') {
        send(res, 200, { status: 'ok' });
      } else if (url.pathname === '/readyz') {
        const r = this.readiness();
        send(res, r.ready ? 200 : 503, r);
      } else if (req.method === 'POST') {
        const route = this.#posts.get(url.pathname);
        if (route === undefined) return send(res, 404, { error: `no route POST ${url.pathname}` });
        const body = await readJsonBody(req);
        if (body.kind === 'error') {
          res.setHeader('connection', 'close');
          return send(res, body.status, { error: body.message });
        }
        const answer = await route(body.value, req.headers);
        send(res, answer.status, answer.body);
      } else if (this.#files.has(url.pathname)) {
        const file = this.#files.get(url.pathname)!;
        res.writeHead(200, { 'content-type': file.contentType, ...STATIC_HEADERS });
        res.end(file.body);
      } else {
        const route = this.#routes.get(url.pathname);
        if (route === undefined) send(res, 404, { error: `no route ${url.pathname}` });
        else send(res, 200, await route(url, req));
      }
    } catch (err) {
      // A route refuses a bad request by throwing an error with an HTTP `status` (400); anything else is a 500.
      const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
      send(res, status, { error: err instanceof Error ? err.message : String(err) });
    }
  }
}

async function readJsonBody(req: IncomingMessage): Promise<{ kind: 'ok'; value: unknown } | { kind: 'error'; status: number; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      // Answered with Connection: close: the rest of the body is never read.
      return { kind: 'error', status: 413, message: `request body larger than ${MAX_BODY_BYTES} bytes` };
    }
    chunks.push(chunk);
  }
  try {
    return { kind: 'ok', value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch (err) {
    return { kind: 'error', status: 400, message: `request body is not JSON: ${(err as Error).message}` };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}
