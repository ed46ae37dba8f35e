// `flowagg run` (what `npm start` runs): every service in one process, on the embedded log by default.
// Today that is ingest, the processor, the exporters whose section is enabled and the flow explorer.
import type { Command } from '../command.js';
import { NO_FILE_CONFIG, SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from '../../serve.js';

/**
 * Without a configuration file `flowagg run` is the quick start, so it shows what it does: UDP and TCP
 * collectors (NO_FILE_CONFIG), the NetFlow collector on UDP 2055 beside IPFIX's 4739 (so that a router or
 * softflowd can be pointed at it as it is), the flow log on, as JSON lines with every counter, in the data
 * directory beside the log, and the API in plain HTTP on 127.0.0.1, for curl. With a file Antrea's
 * defaults hold (TLS, no flow log, no NetFlow; the API on HTTPS with its authentication), so that an
 * Antrea flow-aggregator.conf means what it meant there.
 */
export const QUICK_START_CONFIG = `${NO_FILE_CONFIG}flowLogger:\n  enable: true\n  path: data/flows.log\n  recordFormat: JSON\ningest:\n  netflow:\n    enabled: true\napiServer:\n  protocol: http\n`;

export const runCommand: Command = {
  name: 'run',
  usage: `Usage: flowagg run [--config FILE]

Runs every flowagg service in one process. Without a configuration file: the embedded log in ./data/log,
IPFIX collectors on UDP and TCP port 4739, NetFlow v9/v5 on UDP port 2055, the processor in Antrea's
Aggregate mode (flows.raw into flows.processed), the API (/metrics, /healthz, /readyz, /recordmetrics,
/flowrecords, /loglevel, /version) in plain HTTP without authentication on 127.0.0.1:10348, the flow
explorer's page at http://localhost:10348/ (explorer.enable: false turns it off), and the flow log as JSON
lines in ./data/flows.log. Runs the exporters whose section is enabled (flowCollector.enable: the IPFIX
exporter; clickHouse, s3Uploader, flowLogger). With a configuration file, as in Antrea, the flow log is
off unless flowLogger.enable says so, NetFlow unless ingest.netflow.enabled does, the IPFIX collector is
TLS unless aggregatorTransportProtocol says otherwise, and the API is HTTPS on every address with
Antrea's authentication (the loopback token, or tokens Kubernetes reviews; docs/api.md). Stops cleanly
on SIGINT or SIGTERM.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys; the file is
                  watched and changes apply as Antrea applies them (docs/configuration.md)
`,
  options: SERVICE_OPTIONS,
  run: async (args) => {
    const config = loadServiceConfig(args, {}, QUICK_START_CONFIG);
    return serve(config, { command: 'run', ...fileOf(args), processor: true, exporters: 'enabled', explorer: config.explorer.enable });
  },
};
