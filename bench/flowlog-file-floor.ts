// What the flow log's file costs a JSON line, with no scan and no formatting: the lines of the first
// batch made once, then each batch's bytes copied into the batch's buffer and appended through the flow
// log's file as the exporter appends them (written, fsync'ed, its state replaced, rotated at 100 MB).
// Set against the whole exporter's figure and the writer's into memory alone, it says which of the two
// holds JSON lines back (docs/benchmarks.md, "Exporters reading scanned records").
import { join } from 'node:path';
import { LogFile } from '../exporters/flowlog/log-file.js';
import { scanEach } from '../exporters/flow-values.js';
import { LineBuffer } from '../exporters/row/line-buffer.js';
import type { ExportBatch } from '../exporters/types.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import { writeFlowRecordJson } from '../schemas/flow-record-json-writer.js';
import { ScannedRecord } from '../schemas/flow-record-scanner.js';

export interface FileOnly {
  deliver(batch: ExportBatch): Promise<void>;
  close(): Promise<void>;
}

export async function jsonLinesFileOnly(dir: string): Promise<FileOnly> {
  const file = await LogFile.open({ path: join(dir, 'flows-file-only.log'), maxBytes: 100 * 2 ** 20, maxBackups: 3, maxAgeMs: 0, compress: false, logger: componentLogger('bench').child({}, { level: 'warn' }) });
  const lines = new LineBuffer();
  let first: LineBuffer | undefined;
  const makeOnce = (batch: ExportBatch) => {
    const scanned = new ScannedRecord();
    const made = new LineBuffer();
    scanEach(batch, scanned, ({ offset }) => made.end(offset, writeFlowRecordJson(scanned, made)));
    return made;
  };
  return {
    async deliver(batch) {
      first ??= makeOnce(batch);
      first.bytes(0, first.count).copy(lines.room(first.length), 0);
      // Line i ends where line i + 1 starts.
      for (let i = 0; i < first.count; i++) lines.end(batch.lastOffset - first.count + 1 + i, first.start(i + 1));
      await file.append(`${batch.topic}/${batch.partition}`, lines, batch.lastOffset + 1);
      lines.clear();
    },
    close: () => file.close(),
  };
}
