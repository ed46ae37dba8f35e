// One S3 CSV line per record, as Antrea's uploader writes it (reference §7.3): no header, the 53 fields of
// S3_FIELDS, Pod labels in single quotes (their JSON holds commas). Antrea writes every other string as it
// is; flowagg puts one in single quotes too when it holds a comma, a quote or a line break (strings come
// from exporters, and a newline would forge a row), doubling the quotes inside, as the CSV readers that
// take single quotes as the enclosing character expect. Kubernetes names never need it.
import { S3_FIELDS } from '../row/columns.js';
import type { FlowRow } from '../row/flow-row.js';

const NEEDS_QUOTES = /[',\r\n]/;

const quoted = (s: string) => `'${s.replaceAll("'", "''")}'`;

type Part = (row: FlowRow, timeInserted: number) => string;

function part(name: (typeof S3_FIELDS)[number]): Part {
  if (name === 'timeInserted') return (_row, t) => String(t);
  if (name === 'sourcePodLabels' || name === 'destinationPodLabels') return (row) => quoted(row[name]);
  return (row) => {
    const v = row[name];
    return typeof v === 'string' ? (NEEDS_QUOTES.test(v) ? quoted(v) : v) : String(v);
  };
}

const PARTS: readonly Part[] = S3_FIELDS.map(part);

/** The line of `row`, newline included; `timeInserted` is unix seconds. */
export function s3CsvLine(row: FlowRow, timeInserted: number): string {
  let line = PARTS[0]!(row, timeInserted);
  for (let i = 1; i < PARTS.length; i++) line += ',' + PARTS[i]!(row, timeInserted);
  return line + '\n';
}
