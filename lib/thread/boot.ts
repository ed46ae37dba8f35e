// Starts a worker thread on a module of this program, compiled or not. Under tsx (the sources), Node 20
// cannot load a .ts file as a worker's entry (ERR_UNKNOWN_FILE_EXTENSION: the loader hooks come too late
// for it), so the worker runs this little script, which loads the entry through tsx's API when it is a
// .ts file, and plainly when it is compiled JavaScript. An entry's default export is the thread's main,
// called with the data it was given: importing an entry (on any thread) runs nothing.
import { type TransferListItem, Worker } from 'node:worker_threads';

const BOOT = `const { workerData } = require('node:worker_threads');
(workerData.tsx ? import(workerData.tsx).then((t) => t.tsImport(workerData.entry, workerData.entry)) : import(workerData.entry))
  .then((entry) => entry.default(workerData.data));`;

export interface BootData {
  readonly entry: string;
  readonly tsx?: string;
  readonly data: unknown;
}

/** A worker thread's entry module exports this as its default: the thread's main. */
export type ThreadMain<D> = (data: D) => void | Promise<void>;

/** `entry` is the module's URL (new URL('./x.js', import.meta.url)); its main is called with `data`. */
export function startWorker(entry: URL, data: unknown, transferList: readonly TransferListItem[] = []): Worker {
  // Run through tsx's API (bin/flowagg.js), this module's URLs carry its namespace as a query; the worker
  // loads the entry in a namespace of its own.
  const file = new URL(entry.pathname, entry);
  const boot: BootData = { entry: file.href, data, ...(file.pathname.endsWith('.ts') && { tsx: import.meta.resolve('tsx/esm/api') }) };
  return new Worker(BOOT, { eval: true, workerData: boot, transferList: [...transferList] });
}
