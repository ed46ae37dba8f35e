// Every `flowagg` command, in the order `flowagg --help` lists them.
import { type Command } from '../command.js';
import { decodeCommand } from './decode.js';
import { getCommand } from './get.js';
import { ingestCommand } from './ingest.js';
import { notYetImplemented } from './not-implemented.js';
import { offsetsCommand } from './offsets.js';
import { pipelineCommand } from './pipeline.js';
import { processCommand } from './process.js';
import { runCommand } from './run.js';

export const commands: readonly Command[] = [
  runCommand,
  ingestCommand,
  processCommand,
  notYetImplemented('export', 'send flows.processed to an IPFIX collector, ClickHouse or flow-log files'),
  decodeCommand,
  pipelineCommand,
  offsetsCommand,
  getCommand,
];
