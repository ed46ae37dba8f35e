// Growing a typed array that is filled as it goes (bounds of records, counters per slot).

type Growable = Int32Array | Uint32Array | Float64Array;

/** A copy of `a` in an array of twice its length, the rest zeros. */
export function doubled<T extends Growable>(a: T): T {
  const b = new (a.constructor as new (length: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
