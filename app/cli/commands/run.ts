// `flowagg run` (what `npm start` runs): every service in one process, on the embedded log by default.
// Today that is ingest, the processor and the exporters whose section is enabled.
import { type Command } from '../command.js';
import { SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from '../../serve.js';

/**
 * Without a configuration file `flowagg run` is the quick start, so it shows what it does: the flow log
 * is on, as JSON lines with every counter, in the data directory beside the log, and the NetFlow collector
 * listens on UDP 2055 beside IPFIX's 4739, so that a router or softflowd can be pointed at it as it is.
 * With a file Antrea's defaults hold (no flow log, no NetFlow), so that an Antrea flow-aggregator.conf means
 * what it meant there.
 */
export const QUICK_START_CONFIG = 'flowLogger:\n  enable: true\n  path: data/flows.log\n  recordFormat: JSON\ningest:\n  netflow:\n    enabled: true\n';

export const runCommand: Command = {
  name: 'run',
  usage: `Usage: flowagg run [--config FILE]

Runs every flowagg service in one process. Without a configuration file: the embedded log in ./data/log,
IPFIX collectors on UDP and TCP port 4739, NetFlow v9/v5 on UDP port 2055, the processor in Antrea's Aggregate mode (flows.raw into
flows.processed), HTTP (/metrics, /healthz, /readyz, /recordmetrics, /flowrecords) on port 10348, and the flow log as JSON
lines in ./data/flows.log. Runs the exporters whose section is enabled (flowCollector.enable: the IPFIX
exporter; clickHouse, s3Uploader, flowLogger); with a configuration file, as in Antrea, the flow log is
off unless flowLogger.enable says so, and NetFlow unless ingest.netflow.enabled does. Stops cleanly on
SIGINT or SIGTERM.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys; the file is
                  watched and changes apply as Antrea applies them (docs/configuration.md)
`,
  options: SERVICE_OPTIONS,
  run: async (args) => serve(loadServiceConfig(args, {}, QUICK_START_CONFIG), { command: 'run', ...fileOf(args), processor: true, exporters: 'enabled' }),
};
