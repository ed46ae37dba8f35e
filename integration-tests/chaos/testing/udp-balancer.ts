// One UDP address in front of the ingest replicas, as a Kubernetes Service is: each exporter (address and
// port) sticks to one replica, and moves to another only when its replica is gone. As kube-proxy does, the
// exporter's source address is kept (each exporter gets a socket of its own bound to its address), and its
// port stays the same whichever replica it goes to, so that templates a replica shared through
// ipfix.templates decode its datagrams anywhere. A replica is gone when its API port refuses connections
// twice in a row (its process is dead); a stalled process still accepts connections in the kernel and times
// out instead, and keeps its exporters, as an endpoint stays in a Service through short stalls: moving them
// would let the stalled replica's backlog reach flows.raw after their newer datagrams.
import { createSocket, type Socket } from 'node:dgram';
import { connect } from 'node:net';

export interface UdpBackend {
  readonly udpPort: number;
  readonly httpPort: number;
}

const PROBE_MS = 250;

export class UdpBalancer {
  readonly #front: Socket;
  readonly #backends: readonly UdpBackend[];
  readonly #alive: boolean[];
  readonly #refusals: number[];
  readonly #exporters = new Map<string, { socket: Socket; backend: number }>();
  readonly #timer: NodeJS.Timeout;
  #probing = false;
  /** Exporters moved to another replica because theirs was gone. */
  moves = 0;

  private constructor(front: Socket, backends: readonly UdpBackend[]) {
    this.#front = front;
    this.#backends = backends;
    this.#alive = backends.map(() => true);
    this.#refusals = backends.map(() => 0);
    this.#timer = setInterval(() => void this.#probe(), PROBE_MS);
    front.on('message', (message, from) => this.#forward(message, from.address, from.port));
  }

  static async start(backends: readonly UdpBackend[]): Promise<UdpBalancer> {
    const front = createSocket('udp4');
    await new Promise<void>((resolve) => front.bind(0, '127.0.0.1', resolve));
    return new UdpBalancer(front, backends);
  }

  get port(): number {
    return this.#front.address().port;
  }

  #forward(message: Buffer, address: string, port: number): void {
    const key = `${address}:${port}`;
    let exporter = this.#exporters.get(key);
    if (exporter === undefined) {
      const socket = createSocket('udp4');
      socket.on('error', () => {});
      socket.bind(0, address);
      exporter = { socket, backend: this.#exporters.size % this.#backends.length };
      this.#exporters.set(key, exporter);
    }
    if (!this.#alive[exporter.backend]) {
      const live = this.#alive.findIndex((a) => a);
      if (live >= 0) {
        exporter.backend = live;
        this.moves++;
      }
    }
    exporter.socket.send(message, this.#backends[exporter.backend]!.udpPort, '127.0.0.1');
  }

  async #probe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    await Promise.all(this.#backends.map(async (b, i) => {
      const outcome = await accepts(b.httpPort);
      if (outcome === 'accepted') {
        this.#refusals[i] = 0;
        this.#alive[i] = true;
      } else if (outcome === 'refused' && ++this.#refusals[i]! >= 2) {
        this.#alive[i] = false;
      }
    }));
    this.#probing = false;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#front.close();
    for (const { socket } of this.#exporters.values()) socket.close();
  }
}

/** Whether a TCP connection to the port is accepted (by the kernel: a stalled process's port accepts too). */
function accepts(port: number): Promise<'accepted' | 'refused' | 'other'> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', timeout: PROBE_MS * 4 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('other');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'other'));
  });
}
