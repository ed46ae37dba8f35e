// `flowagg process`: the processor alone (as its own Deployment, next to Kafka): flows.raw into
// flows.processed, in Antrea's Aggregate or Proxy mode.
import { type Command, stringOption, UsageError } from '../command.js';
import { SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from '../../serve.js';

export const processCommand: Command = {
  name: 'process',
  usage: `Usage: flowagg process [--mode aggregate|proxy] [--config FILE]

Consumes flows.raw in the consumer group processor.groupId and writes flows.processed:
  aggregate  (Antrea's default) correlates the two Nodes' halves of inter-Node flows and aggregates
             every flow's records, exporting about 1 s after a flow is ready, then at most once per
             activeFlowRecordTimeout with new data; the state is kept in processor.state, committed
             exactly once with the outputs and the input offsets, and restored when a partition is
             assigned. Any number of instances share the partitions.
  proxy      forwards every record, adding the original exporter, its observation domain and
             flowDirection, Kubernetes metadata for inter-Node records and Pod labels.
Serves /metrics, /healthz, /readyz, /recordmetrics and /flowrecords on apiServer.apiPort (default
10348; HTTPS with Antrea's authentication, docs/api.md). Stops cleanly on SIGINT or SIGTERM, committing what it processed. See docs/processor.md.

  --mode MODE     Aggregate or Proxy (case-insensitive); overrides the configuration's \`mode\`
  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys
`,
  options: { ...SERVICE_OPTIONS, mode: { type: 'string' } },
  run: async (args) => {
    const mode = stringOption(args, 'mode');
    if (mode !== undefined && !['aggregate', 'proxy'].includes(mode.toLowerCase())) throw new UsageError(`--mode must be aggregate or proxy, not "${mode}"`);
    const overrides = mode === undefined ? {} : { mode };
    return serve(loadServiceConfig(args, overrides), { command: 'process', ...fileOf(args), overrides, ingest: false, processor: true });
  },
};
