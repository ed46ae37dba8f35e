// Value types shared by every configuration section: Go-style durations ("90s", "1m30s", "500ms"),
// byte sizes ("64MiB"), and host:port addresses.
import { z } from 'zod';
import './meta.js';

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

/** Milliseconds as the shortest Go duration that parses back to them: 90000 → "1m30s", 5 → "5ms". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return rest > 0 ? `${out}${Number(rest.toFixed(6))}ms` : out;
}

/** A duration in milliseconds, written as a Go duration string ("60s") or a number of milliseconds. */
export const duration = z
  .union([z.number().nonnegative(), z.string()])
  .transform((v, ctx) => {
    if (typeof v === 'number') return v;
    const ms = parseDuration(v.trim());
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${v}" is not a duration (examples: 500ms, 90s, 1m30s, 2h)` });
      return z.NEVER;
    }
    return ms;
  })
  .meta({ valueKind: 'duration' });

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes with the largest binary unit that divides them: 67108864 → "64MiB"; other sizes as numbers. */
export function formatSize(bytes: number): string | number {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return bytes;
}

/** A size in bytes, written as a number or with a unit ("64MiB", "1GB"). */
export const byteSize = z
  .union([z.number().int().nonnegative(), z.string()])
  .transform((v, ctx) => {
    if (typeof v === 'number') return v;
    const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(v.trim());
    const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
    if (!m || unit === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${v}" is not a size (examples: 1048576, 64MiB, 1GB)` });
      return z.NEVER;
    }
    return Math.round(Number(m[1]) * unit);
  })
  .meta({ valueKind: 'size' });

export const port = z.number().int().min(0).max(65535);

/** Nice steps a worker thread's CPU priority lies below the main thread's (lib/thread/priority.ts). */
export const niceness = z.number().int().min(0).max(19).default(10);
