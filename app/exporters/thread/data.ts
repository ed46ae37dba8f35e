// What an exporter's thread is given (threaded-runner.ts → entry.ts), all of it structured-cloneable.
import type { MessagePort } from 'node:worker_threads';
import type { ExporterKind } from '../../../exporters/types.js';
import type { ServiceConfig } from '../../service-config.js';

export interface ExportThreadData {
  readonly config: ServiceConfig;
  readonly kind: ExporterKind;
  /** flows.processed's schema registry id when its values are framed with one (log.valueFormat confluent). */
  readonly schemaId: number | undefined;
  /** The owner's message log, served over this port (lib/log/remote). */
  readonly log: MessagePort;
}
