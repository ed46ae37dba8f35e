// `flowagg run` (what `npm start` runs): every service in one process, on the embedded log by default.
// Today that is ingest and the exporters whose section is enabled; the processor joins when it is built,
// and until then the startup log says it is not running.
import { type Command } from '../command.js';
import { SERVICE_OPTIONS, fileOf, loadServiceConfig, serve } from './serve.js';

export const runCommand: Command = {
  name: 'run',
  usage: `Usage: flowagg run [--config FILE]

Runs every flowagg service in one process. Without a configuration file: the embedded log in ./data/log,
IPFIX collectors on UDP and TCP port 4739, HTTP (/metrics, /healthz, /readyz, /recordmetrics) on port
10348. Runs the exporters whose section is enabled (flowCollector.enable: the IPFIX exporter). Stops
cleanly on SIGINT or SIGTERM. Not implemented yet: the processor (the startup log says so); records
collected now are kept in flows.raw and are processed once it exists.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys; the file is
                  watched and changes apply as Antrea applies them (docs/configuration.md)
`,
  options: SERVICE_OPTIONS,
  run: async (args) => serve(loadServiceConfig(args), { command: 'run', ...fileOf(args), notRunning: ['processor'], exporters: 'enabled' }),
};
