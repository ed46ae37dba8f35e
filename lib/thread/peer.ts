// Two threads that call each other over one port (a served log and its client; a service's thread and
// its owner): each side answers the other's calls with its handlers and settles the answers to its own.
// end() (the port closed, the thread exited) rejects what is pending, and every later call, with
// `closed()`: nothing waits for a thread that is gone.
import type { MessagePort, TransferListItem } from 'node:worker_threads';
import { type CallMessage, Caller, type Handlers, type ReplyMessage, answer } from './calls.js';

/** A MessagePort, a Worker, or a worker's parentPort. */
export interface Endpoint {
  postMessage(message: unknown, transfer?: readonly TransferListItem[]): void;
  on(event: 'message', listener: (message: CallMessage | ReplyMessage) => void): unknown;
}

export class Peer {
  readonly #caller: Caller;
  #ended = false;

  constructor(endpoint: Endpoint, handlers: Handlers, private readonly closed: () => Error, private readonly closeEndpoint: () => void = () => {}) {
    const post = (m: CallMessage | ReplyMessage, transfer?: readonly TransferListItem[]) => {
      if (!this.#ended) endpoint.postMessage(m, transfer);
    };
    this.#caller = new Caller(post);
    endpoint.on('message', (m) => {
      if (m.kind === 'reply') this.#caller.settle(m);
      else void answer(post, handlers, m);
    });
  }

  call<T>(method: string, args: readonly unknown[] = [], transfer?: readonly TransferListItem[]): Promise<T> {
    return this.#caller.call<T>(method, args, transfer);
  }

  /** A call whose answer nobody waits for (a notice): its failure is the other side's to log. */
  tell(method: string, args: readonly unknown[] = []): void {
    this.#caller.call(method, args).catch(() => undefined);
  }

  end(): void {
    this.#ended = true;
    this.#caller.close(this.closed());
  }

  /** Ends this side and closes the endpoint (a port: the other side ends too). */
  close(): void {
    this.end();
    this.closeEndpoint();
  }
}

/** A Peer on a MessagePort: ended when the port closes, on either side, and then `onClose` is told. */
export function portPeer(port: MessagePort, handlers: Handlers, closed: () => Error, onClose: () => void = () => {}): Peer {
  const peer = new Peer(port as unknown as Endpoint, handlers, closed, () => port.close());
  port.once('close', () => {
    peer.end();
    onClose();
  });
  return peer;
}
