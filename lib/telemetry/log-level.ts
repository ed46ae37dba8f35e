// Antrea's log verbosity (klog's -v, what `antctl log-level N` sets through PUT /loglevel?level=N) on
// flowagg's logger. klog's convention (Kubernetes logging guidelines): 0-3 are operator information of
// growing detail, 4 is debug, 5 and above trace. pino has no grades of info, so 0-3 are info, 4 is
// debug, 5+ trace. Warnings and errors are logged at every verbosity, as in klog. A level set to
// something klog has no number for (FLOWAGG_LOG_LEVEL=warn) reads as 0.
import { rootLogger } from './logger.js';

const MAX_VERBOSITY = 2 ** 31 - 1;

export function pinoLevelOf(verbosity: number): 'info' | 'debug' | 'trace' {
  return verbosity >= 5 ? 'trace' : verbosity === 4 ? 'debug' : 'info';
}

let verbosity: number | undefined;

/** The verbosity last set, or the one the logger's level stands for. */
export function currentVerbosity(): number {
  if (verbosity !== undefined && pinoLevelOf(verbosity) === rootLogger.level) return verbosity;
  return rootLogger.level === 'trace' ? 5 : rootLogger.level === 'debug' ? 4 : 0;
}

/** Parses `text` as klog does (an integer); sets the logger's level, for every component at once. */
export function setVerbosity(text: string): { ok: true; verbosity: number } | { ok: false; message: string } {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(n) || n < 0 || n > MAX_VERBOSITY) return { ok: false, message: `level: "${text}" is not a log verbosity (an integer 0..${MAX_VERBOSITY}, as klog's -v)` };
  const level = pinoLevelOf(n);
  if (rootLogger.level !== level) rootLogger.info({ verbosity: n, logLevel: level }, 'log level changed');
  rootLogger.level = level;
  verbosity = n;
  return { ok: true, verbosity: n };
}
