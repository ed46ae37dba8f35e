// Requests and answers between two threads over one port: each call carries an id, its answer settles
// the promise of that id. Nothing queues here beyond what callers await; a port that closed rejects what
// is pending and every later call, so that nothing waits for a thread that is gone.
import type { TransferListItem } from 'node:worker_threads';
import { type WireError, fromWire, toWire } from './wire-error.js';

export interface CallMessage {
  readonly kind: 'call';
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
}

export type ReplyMessage =
  | { readonly kind: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly kind: 'reply'; readonly id: number; readonly ok: false; readonly error: WireError };


export class Caller {
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  #next = 1;
  #closed: Error | undefined;

  constructor(private readonly post: (call: CallMessage, transfer?: readonly TransferListItem[]) => void) {}

  call<T>(method: string, args: readonly unknown[] = [], transfer?: readonly TransferListItem[]): Promise<T> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.post({ kind: 'call', id, method, args }, transfer);
    });
  }

  settle(reply: ReplyMessage): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(fromWire(reply.error));
  }

  /** The other side is gone: `err` rejects what is pending and every later call. */
  close(err: Error): void {
    this.#closed ??= err;
    for (const pending of this.#pending.values()) pending.reject(err);
    this.#pending.clear();
  }
}

export type Handlers = Readonly<Record<string, (...args: never[]) => unknown>>;

/** An answer whose buffers move to the caller's thread instead of being copied. */
export class Transferred<T> {
  constructor(
    readonly value: T,
    readonly transfer: readonly TransferListItem[],
  ) {}
}

/** Runs the call's handler and posts its answer; a method with no handler is answered with an error naming it. */
export async function answer(post: (reply: ReplyMessage, transfer?: readonly TransferListItem[]) => void, handlers: Handlers, call: CallMessage): Promise<void> {
  try {
    const handler = handlers[call.method];
    if (handler === undefined) throw new Error(`no method "${call.method}" on this thread`);
    const value = await (handler as (...args: readonly unknown[]) => unknown)(...call.args);
    if (value instanceof Transferred) post({ kind: 'reply', id: call.id, ok: true, value: value.value }, value.transfer);
    else post({ kind: 'reply', id: call.id, ok: true, value });
  } catch (err) {
    post({ kind: 'reply', id: call.id, ok: false, error: toWire(err) });
  }
}
