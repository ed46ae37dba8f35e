// Every `flowagg` command, in the order `flowagg --help` lists them.
import { type Command } from '../command.js';
import { certsCommand } from './certs.js';
import { configCommand } from './config.js';
import { decodeCommand } from './decode.js';
import { exportCommand } from './export.js';
import { getCommand } from './get.js';
import { ingestCommand } from './ingest.js';
import { offsetsCommand } from './offsets.js';
import { pipelineCommand } from './pipeline.js';
import { processCommand } from './process.js';
import { runCommand } from './run.js';
import { simulateCommand } from './simulate.js';

export const commands: readonly Command[] = [
  runCommand,
  ingestCommand,
  processCommand,
  exportCommand,
  decodeCommand,
  pipelineCommand,
  offsetsCommand,
  getCommand,
  certsCommand,
  configCommand,
  simulateCommand,
];
