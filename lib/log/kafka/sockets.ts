// Every socket one Kafka log's client opens, so that closing the log can cut those that outlive it.
// A kafkajs connection's disconnect() waits for the answers to the requests in flight on it, and its
// request queue stops timing them out as soon as the disconnect starts: a broker that answers nothing
// (stalled, or cut off without a FIN) holds that disconnect, its socket and the queue's pending-request
// timer (re-armed every millisecond) until it answers, so the process cannot exit. A socket destroyed
// with an error makes kafkajs reject what was in flight on it and finish the disconnect.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { ISocketFactory } from 'kafkajs';

const require = createRequire(import.meta.url);
const kafkajsSocketFactory = (require('kafkajs/src/network/socketFactory.js') as () => ISocketFactory)();

export class KafkaSockets {
  private readonly open = new Set<Socket>();
  private refusal: string | undefined;

  /** kafkajs's own factory, remembering each socket until it closes; none once the log is closed. */
  readonly factory: ISocketFactory = (args) => {
    // kafkajs turns a throw here into a connection error, so nothing retries into a closed log.
    if (this.refusal !== undefined) throw new Error(this.refusal);
    const socket = kafkajsSocketFactory(args);
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    return socket;
  };

  /**
   * Refuses new sockets and destroys, with `reason` as their error, those kafkajs has not ended itself;
   * returns their peers, for the log.
   */
  cut(reason: string): string[] {
    this.refusal = reason;
    const cut: string[] = [];
    for (const socket of this.open) {
      if (socket.destroyed || socket.writableEnded) continue;
      cut.push(`${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`);
      socket.destroy(new Error(reason));
    }
    return cut;
  }
}
