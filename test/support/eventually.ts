/**
 * Polls `read` until `done` holds of what it returned, and returns that value; throws at the
 * timeout with the last value seen, so a wait that never ends fails the test where it waited.
 * For what other processes and suites make true a little later (a transaction of another suite
 * still open, a consumer catching up, a file re-read).
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 10_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${describe(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
