// Reading back the file collector-child.ts writes: frames of [receipt time, 8 bytes, when stamped][session,
// 4 bytes][IPFIX message], the message's own header giving its length. Whole (the chaos test's check) or
// streamed in chunks (the end-to-end benchmark's, whose file outgrows a Buffer).
import { open } from 'node:fs/promises';
import type { CollectedMessage } from '../../harness/collector.js';

export interface FileMessage extends CollectedMessage {
  /** When the collector received it, ms since the epoch; NaN in an unstamped file. */
  readonly receivedAt: number;
}

const IPFIX_HEADER = 16;

/** Calls `visit` for every complete frame at the start of `bytes`; returns the bytes they took. */
export function readFrames(bytes: Buffer, stamped: boolean, visit: (m: FileMessage) => void): number {
  const head = stamped ? 12 : 4;
  let p = 0;
  while (p + head + IPFIX_HEADER <= bytes.length) {
    const length = bytes.readUInt16BE(p + head + 2);
    if (p + head + length > bytes.length) break;
    const receivedAt = stamped ? bytes.readDoubleBE(p) : NaN;
    const session = bytes.readUInt32BE(p + head - 4);
    visit({ bytes: bytes.subarray(p + head, p + head + length), from: { address: '', port: 0 }, session, receivedAt });
    p += head + length;
  }
  return p;
}

/** Every frame of the file, in order, reading `chunkBytes` at a time (a frame is at most 64 KiB and 12 bytes). */
export async function streamFrames(file: string, stamped: boolean, visit: (m: FileMessage) => void, chunkBytes = 16 * 2 ** 20): Promise<void> {
  const fh = await open(file, 'r');
  try {
    let rest = Buffer.alloc(0);
    for (;;) {
      const chunk = Buffer.alloc(chunkBytes);
      const { bytesRead } = await fh.read(chunk, 0, chunkBytes);
      if (bytesRead === 0) break;
      const bytes = Buffer.concat([rest, chunk.subarray(0, bytesRead)]);
      rest = bytes.subarray(readFrames(bytes, stamped, visit));
    }
  } finally {
    await fh.close();
  }
}
