// What crash-child.ts writes, shared with crash.test.ts so that the test knows what to expect.

/** Every fifth transaction is aborted on purpose; its records must never be visible. */
export const meantToAbort = (seq: number): boolean => seq % 5 === 4;

/** Records in transaction `seq` (1 to 7, spread over the partitions of `out` by key). */
export const recordsIn = (seq: number): number => 1 + (seq % 7);
