// `flowagg explore`: the flow explorer alone (its own Deployment, next to Kafka): the rollups of
// flows.processed in the consumer group explorer.groupId, and the page and API on the HTTP port.
import type { Command } from '../command.js';
import { SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from '../../serve.js';

export const exploreCommand: Command = {
  name: 'explore',
  usage: `Usage: flowagg explore [--config FILE]

Runs the flow explorer: it reads flows.processed as the consumer group explorer.groupId (default
flowagg-explorer) into time-bucketed rollups, rebuilt from the log at start, and serves the page at / and
its JSON API under /api/v1/ on apiServer.apiPort, beside /metrics, /healthz and /readyz. The flow search
and the path view read flows.processed and flows.raw. Stops cleanly on SIGINT or SIGTERM. See
docs/explorer.md.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys
`,
  options: SERVICE_OPTIONS,
  run: async (args) => serve(loadServiceConfig(args), { command: 'explore', ...fileOf(args), ingest: false, explorer: true }),
};
