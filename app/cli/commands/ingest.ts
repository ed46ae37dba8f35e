// `flowagg ingest`: the IPFIX and NetFlow collectors writing flows.raw, alone (as its own Deployment, next to Kafka).
import type { Command } from '../command.js';
import { NO_FILE_CONFIG, SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from '../../serve.js';

export const ingestCommand: Command = {
  name: 'ingest',
  usage: `Usage: flowagg ingest [--config FILE]

Runs the IPFIX collectors (aggregatorTransportProtocol: udp, tcp, tls, or a list, on port 4739; without a
configuration file udp and tcp, with one TLS unless it says otherwise, as Antrea), and the NetFlow v9/v5
collector when ingest.netflow.enabled (UDP port 2055; docs/netflow.md), and writes every decoded data
record to the flows.raw topic of the configured log (default: the embedded log in ./data/log). Serves
/metrics, /healthz, /readyz and /recordmetrics on apiServer.apiPort (default 10348; HTTPS with Antrea's
authentication, docs/api.md). Stops cleanly on SIGINT or SIGTERM. See docs/ingest.md.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys; the file is
                  watched and changes apply as Antrea applies them (docs/configuration.md)
`,
  options: SERVICE_OPTIONS,
  run: async (args) => serve(loadServiceConfig(args, {}, NO_FILE_CONFIG), { command: 'ingest', ...fileOf(args) }),
};
