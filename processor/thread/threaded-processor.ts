// The processor on worker threads (processor.threads): each thread runs a processor of its own, a member
// of the processor's consumer group, so flows.raw's partitions are shared among the threads as they are
// among processes; this thread keeps the message log and serves it to each of them over a port
// (lib/log/remote), so the log stays the one system of record, with its transactions and fencing.
import { MessageChannel } from 'node:worker_threads';
import { serveLog } from '../../lib/log/remote/serve.js';
import type { MessageLog } from '../../lib/log/types.js';
import type { AvroFraming } from '../../lib/log/value-format.js';
import { componentLogger } from '../../lib/telemetry/logger.js';
import { ThreadedService } from '../../lib/thread/threaded-service.js';
import type { JsonObject } from '../../schemas/flow-record-json.js';
import type { FlowRecordsFilter } from '../api.js';
import type { ProcessorStats } from '../index.js';
import { PROCESSOR_CALLS, type ProcessorThreadConfig, type ProcessorThreadData } from './data.js';

export interface ProcessorThreadDeps {
  readonly log: MessageLog;
  readonly framing: AvroFraming;
  readonly inputFraming: AvroFraming;
  readonly podLabels: boolean;
}

export class ThreadedProcessor extends ThreadedService {
  constructor(config: ProcessorThreadConfig, deps: ProcessorThreadDeps, index: number) {
    const name = `processor-${index}`;
    super({
      name,
      entry: import.meta.resolve('./entry.js'),
      niceness: config.processor.niceness,
      open: () => {
        const { port1, port2 } = new MessageChannel();
        const served = serveLog(deps.log, port1);
        const data: ProcessorThreadData = { config, framing: deps.framing, inputFraming: deps.inputFraming, podLabels: deps.podLabels, log: port2 };
        return { data, transfer: [port2], release: () => served.close() };
      },
    }, componentLogger('processor', { thread: index }));
  }

  setPodLabels(on: boolean): Promise<void> {
    return this.call(PROCESSOR_CALLS.setPodLabels, on);
  }

  flowRecords(filter: FlowRecordsFilter): Promise<JsonObject[]> {
    return this.call(PROCESSOR_CALLS.flowRecords, filter);
  }

  stats(): Promise<ProcessorStats> {
    return this.call(PROCESSOR_CALLS.stats);
  }
}
