// Every `flowagg` command, in the order `flowagg --help` lists them.
import { type Command } from '../command.js';
import { certsCommand } from './certs.js';
import { configCommand } from './config.js';
import { decodeCommand } from './decode.js';
import { exportCommand } from './export.js';
import { ingestCommand } from './ingest.js';
import { notYetImplemented } from './not-implemented.js';
import { offsetsCommand } from './offsets.js';
import { runCommand } from './run.js';
import { simulateCommand } from './simulate.js';

export const commands: readonly Command[] = [
  runCommand,
  ingestCommand,
  notYetImplemented('process', 'aggregate or proxy flows.raw into flows.processed'),
  exportCommand,
  decodeCommand,
  offsetsCommand,
  certsCommand,
  configCommand,
  simulateCommand,
];
