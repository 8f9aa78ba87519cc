/**
 * Resolves with `check()`'s first truthy answer, polling every `every` ms; rejects naming `what` once
 * `ms` have passed. A wait that cannot end fails fast and says what it waited for, instead of hanging
 * until tap's timeout.
 */
export async function until<T>(what: string, check: () => T | Promise<T>, { ms = 15_000, every = 10 } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
