// `flowagg run` (what `npm start` runs): every service in one process, on the embedded log by default.
// Today that is ingest and the processor; the exporters join as they are built, and until then the
// startup log says they are not running.
import { type Command } from '../command.js';
import { SERVICE_OPTIONS, loadServiceConfig, serve } from './serve.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'run every service in one process on the embedded log (what npm start runs)',
  usage: `Usage: flowagg run [--config FILE]

Runs every flowagg service in one process. Without a configuration file: the embedded log in ./data/log,
IPFIX collectors on UDP and TCP port 4739, the processor in Antrea's Aggregate mode (flows.raw into
flows.processed), HTTP (/metrics, /healthz, /readyz, /recordmetrics, /flowrecords) on port 10348. Stops
cleanly on SIGINT or SIGTERM. Not implemented yet: the exporters (the startup log says so); processed
records are kept in flows.processed and are exported once they exist.

  --config FILE   YAML configuration (Antrea's flow-aggregator.conf keys plus flowagg's sections);
                  FLOWAGG_CFG_<PATH> environment variables override single keys
`,
  options: SERVICE_OPTIONS,
  run: async (args) => serve(loadServiceConfig(args), { command: 'run', services: ['ingest', 'processor'], notRunning: ['exporters'] }),
};
