// The shape every `flowagg <command>` has: a name, a usage text for --help, its options (node:util
// parseArgs form) and a run function that returns the exit code; and its entry in the command list
// (commands/index.ts), which holds the one-line summary and loads the command only when it is used.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  readonly name: string;
  /** The full --help text, options included. */
  readonly usage: string;
  readonly options: Options;
  /** Accepts positional arguments (`flowagg decode FILE`); otherwise they are an error. */
  readonly positionals?: boolean;
  run(args: ParsedArgs): Promise<number>;
}

export interface CommandEntry {
  readonly name: string;
  /** One line for `flowagg --help`. */
  readonly summary: string;
  load(): Promise<Command>;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/** Thrown for a command line a person must fix; main prints the message and the usage hint. */
export class UsageError extends Error {}

export function parseCommandArgs(cmd: Command, argv: string[]): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: cmd.options,
      allowPositionals: cmd.positionals ?? false,
      strict: true,
    });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** `-o, --output FORMAT`, the same flag on every command that prints for people and for scripts. */
export const OUTPUT_OPTION = { output: { type: 'string', short: 'o' } } as const;

export function outputFormat<F extends string>(args: ParsedArgs, allowed: readonly [F, ...F[]]): F {
  // --json (offsets) and -f/--format (decode) came first and stay as aliases.
  const given = stringOption(args, 'output') ?? stringOption(args, 'format') ?? (args.values.json === true ? 'json' : undefined);
  if (given === undefined) return allowed[0];
  if (!(allowed as readonly string[]).includes(given)) throw new UsageError(`-o ${given}: the output format is one of ${allowed.join(', ')}`);
  return given as F;
}
