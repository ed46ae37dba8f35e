// The program's version, from its package.json: the one beside the sources, or above dist/ when compiled.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let known: string | undefined;

export function programVersion(): string {
  if (known !== undefined) return known;
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'flowagg' && typeof pkg.version === 'string') return (known = pkg.version);
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) return (known = '0.0.0');
  }
}
