// `flowagg config check FILE` and `flowagg config defaults`: validate a configuration file the way the
// services will (exit 0 when they would start, 1 when not, 2 for a wrong command line), and print every
// key with its default, as YAML that loads back, each key with its description.
import { readFileSync } from 'node:fs';
import { type ConfigDiagnostic, formatDiagnostic, readConfig } from '../../../lib/config/load.js';
import { defaultsYaml } from '../../../lib/config/render.js';
import { type Command, OUTPUT_OPTION, type ParsedArgs, UsageError, outputFormat } from '../command.js';
import { serviceConfigSchema } from '../../service-config.js';

const usage = `Usage: flowagg config check FILE [--strict] [-o text|json]
       flowagg config defaults [-o yaml|json]

check     Validates FILE (Antrea's flow-aggregator.conf keys plus flowagg's sections) with the
          FLOWAGG_CFG_* environment overrides applied, as flowagg run would, and prints every problem:
          errors (invalid values: the service would not start), warnings (unknown keys, ignored) and
          notices (keys accepted for compatibility that have no effect). FILE - reads standard input.
          Exit status: 0 valid, 1 invalid (or, with --strict, any warning), 2 usage error.
defaults  Prints the whole configuration with its defaults; each key's description is a comment.

Options:
  --strict         check: warnings fail the check too
  -o, --output F   check: text (default) or json; defaults: yaml (default) or json
  -h, --help       show this help

Every key, its type, default and reload behaviour: docs/configuration.md.
`;

function readSource(file: string): { file: string; text: string } {
  if (file === '-') return { file: 'stdin', text: readFileSync(0, 'utf8') };
  return { file, text: readFileSync(file, 'utf8') };
}

export function checkConfig(args: ParsedArgs, out: (s: string) => void, env: NodeJS.ProcessEnv = process.env): number {
  const format = outputFormat(args, ['text', 'json']);
  const [file, ...extra] = args.positionals.slice(1);
  if (file === undefined) throw new UsageError('give the configuration file to check (or - for standard input)');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  let source: { file: string; text: string };
  try {
    source = readSource(file);
  } catch (err) {
    const d: ConfigDiagnostic = { level: 'error', path: '', message: `cannot read ${file}: ${(err as Error).message}` };
    return report(format, file, false, [d], out);
  }
  const result = readConfig(serviceConfigSchema, { ...source, env });
  const failed = !result.ok || (args.values.strict === true && result.diagnostics.some((d) => d.level === 'warning'));
  return report(format, source.file, !failed, result.diagnostics, out);
}

function report(format: 'text' | 'json', file: string, valid: boolean, diagnostics: readonly ConfigDiagnostic[], out: (s: string) => void): number {
  if (format === 'json') {
    out(`${JSON.stringify({ file, valid, diagnostics }, null, 2)}\n`);
  } else {
    for (const d of diagnostics) out(`${formatDiagnostic(d)}\n`);
    const count = (level: string) => diagnostics.filter((d) => d.level === level).length;
    out(`${file}: ${valid ? 'valid' : 'invalid'} (${count('error')} errors, ${count('warning')} warnings, ${count('notice')} notices)\n`);
  }
  return valid ? 0 : 1;
}

export function printDefaults(args: ParsedArgs, out: (s: string) => void): number {
  const format = outputFormat(args, ['yaml', 'json']);
  if (args.positionals.length > 1) throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
  out(format === 'yaml' ? defaultsYaml(serviceConfigSchema) : `${JSON.stringify(serviceConfigSchema.parse({}), null, 2)}\n`);
  return 0;
}

export const configCommand: Command = {
  name: 'config',
  usage,
  positionals: true,
  options: { ...OUTPUT_OPTION, strict: { type: 'boolean' } },
  run: async (args) => {
    const write = (s: string) => void process.stdout.write(s);
    switch (args.positionals[0]) {
      case 'check':
        return checkConfig(args, write);
      case 'defaults':
        return printDefaults(args, write);
      case undefined:
        throw new UsageError('give a subcommand: check or defaults');
      default:
        throw new UsageError(`unknown subcommand "${args.positionals[0]}" (check or defaults)`);
    }
  },
};
