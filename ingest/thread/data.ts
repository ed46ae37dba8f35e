// What ingest's thread is given (threaded-ingest.ts → entry.ts), all of it structured-cloneable.
import type { MessagePort } from 'node:worker_threads';
import type { MessageLog } from '../../lib/log/types.js';
import type { AvroFraming } from '../../schemas/avro.js';
import type { IngestConfig } from '../config.js';

export interface IngestThreadData {
  readonly config: IngestConfig;
  readonly framing: AvroFraming | undefined;
  /** The owner's message log, served over this port (lib/log/remote). */
  readonly log: MessagePort;
  readonly backend: MessageLog['backend'];
}

/** Ingest's calls beyond its lifecycle, answered by its thread. */
export const INGEST_CALLS = { ports: 'ports', stats: 'stats' } as const;
