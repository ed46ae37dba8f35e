// "did you mean": the known key closest to a mistyped one, by edit distance ignoring case, when it is
// close enough to be a typo rather than a different word.

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

export function closestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (best === undefined || d < best.d) best = { key: k, d };
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(key.length / 4)) ? best.key : undefined;
}
