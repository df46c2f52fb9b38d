import { call, runApiUntilExit, startApiProcess } from '../../../test/support/api-process';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/** The built API, started as an operator would, with no IPAM_TOKENS and no IPAM_TOKENS_FILE. */
describe('fail closed without tokens', () => {
  let db: TestDatabase;
  beforeAll(async () => (db = await createTestDatabase('fail-closed')));
  afterAll(() => db.drop());

  const messages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { message: string }).message);

  it('refuses to listen on a non-loopback address, exiting non-zero with the reason', async () => {
    const { code, lines } = await runApiUntilExit(db.url, { from: 'dist', env: { HOST: '0.0.0.0' } });
    expect(code).toBe(1);
    expect(messages(lines)).toContainEqual(
      expect.stringMatching(/^refusing to listen on 0\.0\.0\.0:\d+ with no tokens.*set IPAM_TOKENS or IPAM_TOKENS_FILE, or IPAM_AUTH=off/),
    );
  });

  it('serves openly on 0.0.0.0 with IPAM_AUTH=off, and says so', async () => {
    const api = await startApiProcess(db.url, { from: 'dist', env: { HOST: '0.0.0.0', IPAM_AUTH: 'off' } });
    try {
      expect((await call(api.base, 'GET', '/v1/pools')).status).toBe(200);
    } finally {
      await api.stop();
    }
    expect(messages(api.lines)).toContainEqual(expect.stringMatching(/^IPAM_AUTH=off: access checks are OFF, listening on 0\.0\.0\.0:\d+/));
  });

  it('listens on loopback by default, and its start-up line says what is true', async () => {
    const api = await startApiProcess(db.url, { from: 'dist' });
    await api.stop();
    expect(messages(api.lines)).toContainEqual(
      expect.stringMatching(
        /^IPAM_TOKENS and IPAM_TOKENS_FILE are not set: access checks are OFF, listening on loopback only \(127\.0\.0\.1:\d+\)$/,
      ),
    );
  });
});
