import { appendFileSync } from 'node:fs';

/**
 * One line of figures per scenario, on the terminal (outside Jest's console capture) and, when
 * CHAOS_REPORT names a file, appended to it: the figures a release note quotes.
 */
export function report(scenario: string, figures: Record<string, number | string>): void {
  const line = `${scenario}: ${Object.entries(figures)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')}`;
  process.stdout.write(`\n[chaos] ${line}\n`);
  if (process.env.CHAOS_REPORT) appendFileSync(process.env.CHAOS_REPORT, `${line}\n`);
}

export const seconds = (ms: number) => (ms / 1000).toFixed(2);

/** Waits until `done` is true, polling; returns how long it took. Throws after `timeoutMs`. */
export async function waitFor(what: string, done: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}
