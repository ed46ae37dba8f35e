// Ingest on a worker thread of its own (ingest.thread): its listeners, decoding and transcoding leave this
// thread, which keeps the message log and appends what the thread hands it (lib/log/remote: each send's
// records copied once into a moved buffer), so the log stays the one system of record. Node 20 has no
// reusePort, so the thread owns its listening sockets: one ingest thread per process.
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { serveLog } from '../../lib/log/remote/serve.js';
import type { MessageLog } from '../../lib/log/types.js';
import type { Service } from '../../lib/service/service.js';
import { componentLogger } from '../../lib/telemetry/logger.js';
import { ThreadedService } from '../../lib/thread/threaded-service.js';
import type { AvroFraming } from '../../schemas/avro.js';
import type { IngestConfig } from '../config.js';
import { type Ingest, createIngest } from '../index.js';
import type { PipelineStats } from '../pipeline.js';
import { INGEST_CALLS, type IngestThreadData } from './data.js';

/** What the program asks of ingest, in this thread or on another. */
export interface IngestService extends Service {
  /** Known once started. */
  readonly ports: Ingest['ports'];
  stats(): PipelineStats | Promise<PipelineStats>;
}

interface IngestServiceDeps {
  readonly log: MessageLog;
  readonly framing?: AvroFraming;
}

export class ThreadedIngest extends ThreadedService implements IngestService {
  #ports: Ingest['ports'] = {};

  constructor(config: IngestConfig, deps: IngestServiceDeps) {
    super({
      name: 'ingest',
      entry: import.meta.resolve('./entry.js'),
      open: () => {
        const { port1, port2 } = new MessageChannel();
        const served = serveLog(deps.log, port1);
        const data: IngestThreadData = { config, framing: deps.framing, log: port2, backend: deps.log.backend };
        return { data, transfer: [port2], release: () => served.close() };
      },
    }, componentLogger('ingest', { thread: true }));
  }

  get ports(): Ingest['ports'] {
    return this.#ports;
  }

  override async start(): Promise<void> {
    await super.start();
    this.#ports = await this.call(INGEST_CALLS.ports);
  }

  stats(): Promise<PipelineStats> {
    return this.call(INGEST_CALLS.stats);
  }
}

/** ingest.thread: `auto` is on from four cores: on two, ingest on its thread beside the processor's and the exporters' gave no clear gain (docs/benchmarks.md, "Threads"). */
export function ingestThread(config: IngestConfig, cores = availableParallelism()): boolean {
  const { thread } = config.ingest;
  return thread === 'auto' ? cores >= 4 : thread;
}

/** Ingest in this thread or on its own, as ingest.thread says. */
export function createIngestService(config: IngestConfig, deps: IngestServiceDeps): IngestService {
  return ingestThread(config) ? new ThreadedIngest(config, deps) : createIngest(config, deps);
}
