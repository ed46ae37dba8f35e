// A TCP proxy in front of a real server, for outage tests: while it is down, every connection is cut
// (those open are reset, new ones are accepted and reset at once, as a server behind a dead load
// balancer looks), and requests in flight fail part-way, the hard case for a client that must not lose
// or duplicate anything. The server itself keeps running for the other tests that share it.
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How long the tests that take it from here keep a destination unreachable: FLOWAGG_TEST_OUTAGE_SECONDS,
 * 15 s by default so that CI stays fast (FLOWAGG_TEST_OUTAGE_SECONDS=60 is the 60 s of issue 17).
 */
export function outageMs(): number {
  const seconds = Number(process.env.FLOWAGG_TEST_OUTAGE_SECONDS ?? 15);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`FLOWAGG_TEST_OUTAGE_SECONDS must be a positive number of seconds, not "${process.env.FLOWAGG_TEST_OUTAGE_SECONDS}"`);
  return seconds * 1000;
}

export class OutageProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #down = false;
  /** Connections cut while down. */
  refused = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** `down`: cutting every connection from the start, until up(): a destination unreachable at start. */
  static async start(targetHost: string, targetPort: number, opts: { down?: boolean } = {}): Promise<OutageProxy> {
    const server = createServer();
    const proxy = new OutageProxy(server);
    proxy.#down = opts.down ?? false;
    server.on('connection', (client) => proxy.#accept(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  #accept(client: Socket, host: string, port: number): void {
    if (this.#down) {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  /** Cuts every open connection and every new one until up(). */
  down(): void {
    this.#down = true;
    for (const s of this.#sockets) s.resetAndDestroy();
  }

  up(): void {
    this.#down = false;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
