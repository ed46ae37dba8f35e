// Ingest on a worker thread (threaded-ingest.ts starts it): the same service as in the main thread, its
// listeners bound in this thread, writing to the owner's message log through a port.
import { remoteLog } from '../../lib/log/remote/client.js';
import type { ThreadMain } from '../../lib/thread/boot.js';
import { hostService } from '../../lib/thread/service-host.js';
import { createIngest } from '../index.js';
import { INGEST_CALLS, type IngestThreadData } from './data.js';

const main: ThreadMain<IngestThreadData> = (data) => hostService(async () => {
  const log = remoteLog(data.log, data.backend);
  const ingest = createIngest(data.config, { log, ...(data.framing && { framing: data.framing }) });
  return {
    service: ingest,
    calls: {
      [INGEST_CALLS.ports]: () => ingest.ports,
      [INGEST_CALLS.stats]: () => ingest.stats(),
    },
    close: () => log.close(),
  };
});
export default main;
