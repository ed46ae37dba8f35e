// `flowagg export KIND`: one exporter alone (as its own Deployment, next to Kafka), reading flows.processed
// as its own consumer group and sending to its destination.
import { EXPORTER_MODULES } from '../../exporters/index.js';
import { findExporter } from '../../exporters/registry.js';
import { type Command, UsageError } from '../command.js';
import { SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from '../../serve.js';

const kinds = () => EXPORTER_MODULES.map((m) => `${m.kind} (${m.section})`).join(', ');

export const exportCommand: Command = {
  name: 'export',
  usage: `Usage: flowagg export KIND [--config FILE]

Runs one exporter: it reads the flows.processed topic of the configured log as the consumer group
flowagg-export-KIND and sends every record to its destination, committing only what the destination
accepted. KIND and the configuration section it reads: ${kinds()}. Serves /metrics, /healthz,
/readyz and /recordmetrics on apiServer.apiPort (HTTPS with Antrea's authentication, docs/api.md). Stops cleanly on SIGINT or SIGTERM after the batches in
flight. See docs/exporters.md.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys
`,
  options: SERVICE_OPTIONS,
  positionals: true,
  run: async (args) => {
    const [kind, ...extra] = args.positionals;
    if (kind === undefined || extra.length > 0) throw new UsageError(`give one exporter kind: ${EXPORTER_MODULES.map((m) => m.kind).join(', ')}`);
    // The section is used whatever its `enable` says, so it is validated as an enabled one (a bucket name, an address).
    const overrides = { [`${findExporter(EXPORTER_MODULES, kind).section}.enable`]: true };
    return serve(loadServiceConfig(args, overrides), { command: `export ${kind}`, ...fileOf(args), overrides, ingest: false, exporters: [kind] });
  },
};
