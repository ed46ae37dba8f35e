// A processor on a worker thread (threaded-processor.ts starts it): the processor of one thread, on the
// owner's message log through a port, with Kubernetes metadata of its own (informers are per thread, as
// they are per process when the processor is scaled out).
import { openMetadataSource } from '../../lib/k8s/index.js';
import { remoteLog } from '../../lib/log/remote/client.js';
import type { ThreadMain } from '../../lib/thread/boot.js';
import { hostService } from '../../lib/thread/service-host.js';
import { type FlowRecordsFilter, flowRecords } from '../api.js';
import { createProcessor } from '../index.js';
import { PROCESSOR_CALLS, type ProcessorThreadData } from './data.js';

const main: ThreadMain<ProcessorThreadData> = (data) => hostService(async () => {
  const log = remoteLog(data.log, data.config.log.backend);
  const metadata = await openMetadataSource(data.config.kubernetes);
  await metadata?.ready();
  const processor = createProcessor(data.config, { log, framing: data.framing, inputFraming: data.inputFraming, ...(metadata && { metadata }) });
  processor.setPodLabels(data.podLabels);
  return {
    service: processor,
    calls: {
      [PROCESSOR_CALLS.setPodLabels]: (on: boolean) => processor.setPodLabels(on),
      [PROCESSOR_CALLS.flowRecords]: (filter: FlowRecordsFilter) => flowRecords(processor, filter),
      [PROCESSOR_CALLS.stats]: () => processor.stats(),
    },
    close: async () => {
      await metadata?.close();
      await log.close();
    },
  };
});
export default main;
