// Test support: where the shared IPFIX fixtures lie (../shared from the repository root, never
// copied), and helpers to read them. Production code never imports this file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scanMessage } from '../decode-message.js';
import { recordLayout } from '../record-layout.js';
import type { TemplateStore } from '../template-store.js';

export const SHARED_IPFIX = new URL('../../../../shared/fixtures/ipfix/', import.meta.url);
export const VENDORS = new URL('vendors/', SHARED_IPFIX);

export interface Sequence {
  readonly name: string;
  readonly files: readonly string[];
  readonly messages: number;
  readonly dataRecords: number;
  readonly templateRecords: number;
}

export function readManifest(): Sequence[] {
  const [, ...rows] = readFileSync(new URL('MANIFEST.tsv', VENDORS), 'utf8').trim().split('\n');
  return rows.map((row) => {
    const [name = '', files = '', messages, dataRecords, templateRecords] = row.split('\t');
    return { name, files: files.split(','), messages: Number(messages), dataRecords: Number(dataRecords), templateRecords: Number(templateRecords) };
  });
}

export function readVendorFile(file: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(file, VENDORS)));
}

export function vendorPath(file: string): string {
  return fileURLToPath(new URL(file, VENDORS));
}

export function readExpectedDump(sequence: string): string {
  return readFileSync(new URL(`expected/${sequence}.ipfixdump.txt`, VENDORS), 'utf8');
}

/** All vendor messages of every sequence, for fuzzing and benchmarks. */
export function allVendorMessages(): Uint8Array[] {
  return readManifest().flatMap((s) => s.files.map(readVendorFile));
}

/**
 * The raw content bytes of every field of every top-level data record in `msg`, in decode order,
 * located without the value decoder: scanMessage and the record-layout scanner, the transcoder's path.
 */
export function rawFields(msg: Uint8Array, store: TemplateStore): Uint8Array[][] {
  const out: Uint8Array[][] = [];
  scanMessage(msg, store, (template, buf, start, end) => {
    const { scanRecord, minLength } = recordLayout(template);
    const n = template.fields.length;
    const starts = new Int32Array(n);
    const lengths = new Int32Array(n);
    for (let q = start; end - q >= minLength; ) {
      const next = scanRecord(buf, q, end, starts, lengths);
      if (next < 0) break;
      out.push(Array.from({ length: n }, (_, i) => buf.subarray(starts[i] as number, (starts[i] as number) + (lengths[i] as number))));
      q = next;
    }
  });
  return out;
}
