// `flowagg run` (what `npm start` runs): every service in one process, on the embedded log by default.
// Today that is ingest, the processor and the exporters whose section is enabled.
import { type Command } from '../command.js';
import { SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from './serve.js';

export const runCommand: Command = {
  name: 'run',
  usage: `Usage: flowagg run [--config FILE]

Runs every flowagg service in one process. Without a configuration file: the embedded log in ./data/log,
IPFIX collectors on UDP and TCP port 4739, the processor in Antrea's Aggregate mode (flows.raw into
flows.processed), HTTP (/metrics, /healthz, /readyz, /recordmetrics, /flowrecords) on port 10348. Runs
the exporters whose section is enabled (flowCollector.enable: the IPFIX exporter; clickHouse, s3Uploader,
flowLogger). Stops cleanly on SIGINT or SIGTERM.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys; the file is
                  watched and changes apply as Antrea applies them (docs/configuration.md)
`,
  options: SERVICE_OPTIONS,
  run: async (args) => serve(loadServiceConfig(args), { command: 'run', ...fileOf(args), processor: true, exporters: 'enabled' }),
};
