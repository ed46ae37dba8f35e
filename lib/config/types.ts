// Value types shared by every configuration section: Go-style durations ("90s", "1m30s", "500ms"),
// byte sizes ("64MiB"), and host:port addresses.
import { z } from 'zod';

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration into milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === text.length && matched > 0 ? total : undefined;
}

/** A duration in milliseconds, written as a Go duration string ("60s") or a number of milliseconds. */
export const duration = z.union([z.number().nonnegative(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const ms = parseDuration(v.trim());
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a duration (examples: 500ms, 90s, 1m30s, 2h)` });
    return z.NEVER;
  }
  return ms;
});

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** A size in bytes, written as a number or with a unit ("64MiB", "1GB"). */
export const byteSize = z.union([z.number().int().nonnegative(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(v.trim());
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${v}" is not a size (examples: 1048576, 64MiB, 1GB)` });
    return z.NEVER;
  }
  return Math.round(Number(m[1]) * unit);
});

export const port = z.number().int().min(0).max(65535);
