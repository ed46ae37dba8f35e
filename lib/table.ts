// Plain-text tables for command output: one header row, columns padded to their widest cell, numbers
// right-aligned so that offsets line up.

export type Cell = string | number | null;

export function formatTable(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const text = rows.map((row) => row.map((c) => (c === null ? '-' : String(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((r) => r[i]?.length ?? 0)));
  const numeric = header.map((_, i) => rows.some((r) => typeof r[i] === 'number') && rows.every((r) => typeof r[i] === 'number' || r[i] === null));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...text.map(line)].join('\n') + '\n';
}
