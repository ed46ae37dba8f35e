// Helpers for the CLI's tests. Production code never imports this file.
import { main } from './main.js';

/** Runs `flowagg argv` in this process and returns its exit code and what it wrote to stderr. */
export async function runCaptured(argv: string[]): Promise<{ code: number; stderr: string }> {
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
