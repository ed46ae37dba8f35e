// The flow explorer in a command that serves (flowagg run, flowagg explore): the service under its
// supervisor, its API and its page mounted on the command's HTTP server, so that they are served, and
// authenticated, as the server's other routes are.
import type { TelemetryServer } from '../lib/telemetry/http.js';
import type { MessageLog } from '../lib/log/types.js';
import { type AvroFraming, topicValueFraming } from '../lib/log/value-format.js';
import type { Service } from '../lib/service/service.js';
import type { ServiceStack } from '../lib/service/stack.js';
import type { Supervisor } from '../lib/service/supervisor.js';
import { FLOW_RECORD_SCHEMA } from '../schemas/flow-record.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { mountExplorerApi } from '../exporters/explorer/api.js';
import { createExplorer, type Explorer } from '../exporters/explorer/index.js';
import { pageFiles } from '../exporters/explorer/static.js';
import type { ServiceConfig } from './service-config.js';

export interface ExplorerWiring {
  readonly log: MessageLog;
  readonly http: TelemetryServer;
  readonly services: ServiceStack;
  readonly supervise: <S extends Service>(create: () => S) => Supervisor<S>;
  /** The framing of flows.raw's values (the path view reads them). */
  readonly rawFraming: AvroFraming;
}

const decoderOf = (framing: AvroFraming) => new FlowRecordDecoder(framing.kind === 'confluent' ? framing.schemaId : undefined);

export async function startExplorer(config: ServiceConfig, w: ExplorerWiring): Promise<Supervisor<Explorer>> {
  const topics = config.log.topics;
  const processed = decoderOf(await topicValueFraming(config.log, topics.flowsProcessed, FLOW_RECORD_SCHEMA));
  const raw = decoderOf(w.rawFraming);
  const files = await pageFiles();
  const explorer = await w.services.start(w.supervise(() => createExplorer(config.explorer, { log: w.log, topics, decoder: processed })));
  const access = { reader: w.log.reader(), admin: w.log.admin(), budget: config.explorer.maxScanRecords };
  w.services.push({ name: 'explorer.reader', stop: () => access.reader.close() });
  w.http.addReadinessCheck('explorer', () => explorer.readiness());
  mountExplorerApi(w.http, {
    explorer: () => explorer.current,
    config: config.explorer,
    processed: { ...access, topic: topics.flowsProcessed, decode: (v) => processed.decode(v) },
    raw: { ...access, topic: topics.flowsRaw, decode: (v) => raw.decode(v) },
  });
  for (const [path, file] of Object.entries(files)) w.http.addStaticRoute(path, file);
  return explorer;
}
