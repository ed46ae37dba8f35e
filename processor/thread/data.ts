// What a processor thread is given (threaded-processor.ts → entry.ts), all of it structured-cloneable.
import type { MessagePort } from 'node:worker_threads';
import type { KubernetesConfig } from '../../lib/k8s/config.js';
import type { LogConfig } from '../../lib/log/config.js';
import type { AvroFraming } from '../../lib/log/value-format.js';
import type { ProcessorConfig } from '../config.js';

export type ProcessorThreadConfig = ProcessorConfig & { readonly log: LogConfig; readonly kubernetes: KubernetesConfig };

export interface ProcessorThreadData {
  readonly config: ProcessorThreadConfig;
  readonly framing: AvroFraming;
  readonly inputFraming: AvroFraming;
  readonly podLabels: boolean;
  /** The owner's message log, served over this port (lib/log/remote). */
  readonly log: MessagePort;
}

/** The processor's calls beyond its lifecycle, answered by its thread. */
export const PROCESSOR_CALLS = { setPodLabels: 'setPodLabels', flowRecords: 'flowRecords', stats: 'stats' } as const;
