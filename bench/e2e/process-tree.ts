// CPU seconds and resident memory of a process and every process under it, from /proc (Linux): the end-to-end
// benchmark's "whole process tree". flowagg run is one process today (its workers are threads, which its
// own counters include), but a child it started would count too. Reaped children count through the parent's
// cutime and cstime.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ, 100 on every Linux flowagg runs on
const PAGE = 4096;

interface Stat {
  readonly pid: number;
  readonly ppid: number;
  readonly cpu: number;
  readonly rss: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's parenthesised name, which may hold spaces: state, ppid, ..., utime is field 14.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = [f[11], f[12], f[13], f[14]].map(Number) as [number, number, number, number];
    return { pid, ppid: Number(f[1]), cpu: (utime + stime + cutime + cstime) / TICKS, rss: Number(f[21]) * PAGE };
  } catch {
    return undefined; // gone meanwhile
  }
}

export function processTree(root: number): { cpuSeconds: number; rssBytes: number; processes: number } {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((d) => stat(Number(d))).filter((s) => s !== undefined);
  const children = new Map<number, Stat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const tree = all.filter((s) => s.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!.pid) ?? []));
  return { cpuSeconds: tree.reduce((n, s) => n + s.cpu, 0), rssBytes: tree.reduce((n, s) => n + s.rss, 0), processes: tree.length };
}
