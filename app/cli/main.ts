#!/usr/bin/env node
// `flowagg <command> [options]`: the one entry point of every service and tool.
import { errorMessage, isFlowaggError } from '../../lib/errors.js';
import { type CommandEntry, UsageError, parseCommandArgs } from './command.js';
import { commands } from './commands/index.js';

function topLevelHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'flowagg: an event-sourced IPFIX flow pipeline',
    '',
    'Usage: flowagg <command> [options]      flowagg <command> --help',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
  ].join('\n');
}

/** Where main() writes its help and its errors; tests pass their own, as node's test runner reports over stdout. */
export interface CliOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const PROCESS_OUTPUT: CliOutput = { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };

export async function main(argv: string[], out: CliOutput = PROCESS_OUTPUT): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out.stdout(topLevelHelp());
    return name === undefined ? 2 : 0;
  }
  const entry: CommandEntry | undefined = commands.find((c) => c.name === name);
  if (entry === undefined) {
    out.stderr(`flowagg: unknown command "${name}"\n\n${topLevelHelp()}`);
    return 2;
  }
  const cmd = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    out.stdout(cmd.usage.endsWith('\n') ? cmd.usage : `${cmd.usage}\n`);
    return 0;
  }
  try {
    return await cmd.run(parseCommandArgs(cmd, rest));
  } catch (err) {
    if (err instanceof UsageError) {
      out.stderr(`flowagg ${cmd.name}: ${err.message}\nSee: flowagg ${cmd.name} --help\n`);
      return 2;
    }
    const code = isFlowaggError(err) ? ` [${err.code}]` : '';
    out.stderr(`flowagg ${cmd.name}: ${errorMessage(err)}${code}\n`);
    return 1;
  }
}

const invokedDirectly = process.argv[1] !== undefined && /(?:^|[\\/])main\.(?:ts|js)$/.test(process.argv[1]);
if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2));
}
