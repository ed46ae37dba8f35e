// Every `flowagg` command, in the order `flowagg --help` lists them. A command's module (and with it
// kafkajs, avsc, the services) is loaded only when that command runs or prints its --help, so that
// `flowagg --help` answers at once.
import type { CommandEntry } from '../command.js';

export const commands: readonly CommandEntry[] = [
  {
    name: 'run',
    summary: 'run every service in one process on the embedded log (what npm start runs)',
    load: async () => (await import('./run.js')).runCommand,
  },
  { name: 'ingest', summary: "collect IPFIX over UDP, TCP and TLS, and Antrea Agents' gRPC, into flows.raw", load: async () => (await import('./ingest.js')).ingestCommand },
  { name: 'process', summary: 'aggregate or proxy flows.raw into flows.processed', load: async () => (await import('./process.js')).processCommand },
  {
    name: 'export',
    summary: 'send flows.processed to a destination: ipfix, clickhouse, s3 or flowlog',
    load: async () => (await import('./export.js')).exportCommand,
  },
  { name: 'explore', summary: 'the flow explorer alone: its page and JSON API over flows.processed', load: async () => (await import('./explore.js')).exploreCommand },
  { name: 'decode', summary: 'decode an IPFIX file or a pcap capture to JSON lines', load: async () => (await import('./decode.js')).decodeCommand },
  {
    name: 'pipeline',
    summary: 'run a capture through the processor and print the output records as JSON lines',
    load: async () => (await import('./pipeline.js')).pipelineCommand,
  },
  { name: 'offsets', summary: 'list consumer groups and lag, or reset a group to replay', load: async () => (await import('./offsets.js')).offsetsCommand },
  {
    name: 'get',
    summary: 'show the flow records or record metrics of a running instance (antctl get)',
    load: async () => (await import('./get.js')).getCommand,
  },
  {
    name: 'certs',
    summary: "show the collector's TLS certificates, or issue them into a directory",
    load: async () => (await import('./certs.js')).certsCommand,
  },
  { name: 'config', summary: 'check a configuration file, or print the defaults', load: async () => (await import('./config.js')).configCommand },
  {
    name: 'simulate',
    summary: 'synthetic Antrea Agents exporting flows to a collector (the demo, the load generator)',
    load: async () => (await import('./simulate.js')).simulateCommand,
  },
];
