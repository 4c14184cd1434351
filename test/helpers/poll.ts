/**
 * Polls `probe` until it answers something other than undefined, under a generous ceiling: a
 * test waits for the event it needs, never for a fixed time, and a busy machine only makes it
 * wait longer. The ceiling is only reached when the event never comes.
 */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ceilingMs = 120_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + ceilingMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ceilingMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
