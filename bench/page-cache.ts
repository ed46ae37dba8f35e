// This machine gives its free memory back to its host (virtio-balloon free page reporting: freed 2 MiB
// blocks are reported after about 2 s, and the host drops them). A page the kernel then takes for the
// page cache is faulted in again on the host, inside the guest's write(): dd writes 270–290 MB/s into
// such pages and 3–3.9 GB/s into pages freed a moment before. A benchmark that writes a log would count
// the host's faults as its own kernel CPU, and by how much would depend on what ran before it. Writing
// and deleting a file of the size the case will write, just before it, gives it pages freed a moment
// before, as a machine that keeps its memory does (docs/benchmarks.md, "The log's floor, and pages given back to the host").
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const CHUNK = Buffer.alloc(1 << 20, 1);

/** Writes `bytes` to a scratch file in `dir` and deletes it, so that the next writes reuse its pages. */
export function warmPageCache(dir: string, bytes: number): void {
  const path = join(dir, 'page-cache-warm-up');
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < bytes; written += CHUNK.length) writeSync(fd, CHUNK);
  } finally {
    closeSync(fd);
    unlinkSync(path);
  }
}

/** Whether this machine reports freed memory to its host, from the kernel's own count. */
export function reportsFreePages(): boolean {
  try {
    return Number(readFileSync('/sys/module/page_reporting/parameters/reported_kib', 'utf8')) > 0;
  } catch {
    return false;
  }
}
