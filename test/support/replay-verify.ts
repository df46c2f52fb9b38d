import { runCli } from '../../apps/api/src/cli';

/**
 * `ipledger replay --verify` over a suite's database must end clean: every read model rebuilt from
 * the log equals the live one, and every snapshot its stream's fold.
 */
export async function expectReplayVerifyClean(databaseUrl: string): Promise<void> {
  const lines: string[] = [];
  const code = await runCli(['replay', '--verify'], (line) => lines.push(line), { DATABASE_URL: databaseUrl });
  expect(lines.at(-1)).toMatch(/events replayed; every read model matches the log$/);
  expect(code).toBe(0);
}
