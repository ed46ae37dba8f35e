// What holds the event loop open, for tests that check that something let go of everything it opened.

/** Kinds from process.getActiveResourcesInfo() (unref'd timers are not listed) beyond those `before` had. */
export function openedSince(before: readonly string[]): string[] {
  const left = [...before];
  return process.getActiveResourcesInfo().filter((kind) => {
    const i = left.indexOf(kind);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}
