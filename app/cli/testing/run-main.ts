// Test helpers for commands: run `flowagg <argv>` in-process with its stderr captured.
import { main } from '../main.js';

export async function runMain(argv: string[]): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await main(argv), stderr };
  } finally {
    process.stderr.write = write;
  }
}
