// Every `flowagg` command, in the order `flowagg --help` lists them.
import { type Command } from '../command.js';
import { notYetImplemented } from './not-implemented.js';

export const commands: readonly Command[] = [
  notYetImplemented('run', 'run every service in one process on the embedded log (what npm start runs)'),
  notYetImplemented('ingest', 'collect IPFIX over UDP, TCP and TLS into flows.raw'),
  notYetImplemented('process', 'aggregate or proxy flows.raw into flows.processed'),
  notYetImplemented('export', 'send flows.processed to an IPFIX collector, ClickHouse or flow-log files'),
  notYetImplemented('decode', 'decode an IPFIX file or a pcap capture to JSON lines'),
  notYetImplemented('offsets', 'list consumer groups and lag, or reset a group to replay'),
];
