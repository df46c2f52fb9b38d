import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../../test/support/free-port';
import { createTestCa, type TestCa } from '../../../test/support/test-ca';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const MAIN = join(__dirname, '../../../dist/api/main.js');
const CLEAR_TEXT = /^tokens are configured but the API serves plain HTTP on (.+): bearer tokens cross the network in clear text/;

/**
 * The built API's start-up lines, up to its last one (the Kubernetes consumer's), then stopped:
 * HTTP or HTTPS alike, nothing is asked of it.
 */
async function startUpLines(databaseUrl: string, env: NodeJS.ProcessEnv): Promise<Array<{ level: string; message: string }>> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(await freePort()), IPAM_KUBERNETES_CONSUMER: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: Array<{ level: string; message: string }> = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        messages.push(JSON.parse(line) as { level: string; message: string });
        if (/Kubernetes consumer off/.test(messages.at(-1)!.message)) resolve();
      });
    }
    void exited.then(() => resolve());
  });
  child.kill('SIGTERM');
  await exited;
  return messages;
}

describe('the start-up warning when tokens would cross the network in clear text', () => {
  let db: TestDatabase;
  let ca: TestCa;
  const dir = mkdtempSync(join(tmpdir(), 'ipledger-plain-http-'));
  const tokensFile = join(dir, 'tokens');
  beforeAll(async () => {
    db = await createTestDatabase('plain_http');
    ca = createTestCa('plain-http');
    writeFileSync(tokensFile, 'clear-text-admin:admin\n');
  });
  afterAll(async () => {
    ca.close();
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });

  it('says so, once, at warn level, with tokens on a non-loopback address over plain HTTP', async () => {
    const messages = await startUpLines(db.url, { IPAM_TOKENS: 'clear-text-admin:admin', HOST: '0.0.0.0' });
    const warnings = messages.filter((m) => CLEAR_TEXT.test(m.message));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].level).toBe('warn');
    expect(warnings[0].message).toMatch(/plain HTTP on 0\.0\.0\.0:\d+: .*serve HTTPS \(IPAM_TLS_CERT_FILE and IPAM_TLS_KEY_FILE\)/);
  });

  it.each([
    ['tokens from a file, on :: (every address)', true, { tokensFile: true, HOST: '::' }],
    ['tokens on loopback', false, { IPAM_TOKENS: 'clear-text-admin:admin', HOST: '127.0.0.1' }],
    ['no tokens (loopback only)', false, {}],
    ['tokens over HTTPS', false, { IPAM_TOKENS: 'clear-text-admin:admin', HOST: '0.0.0.0', tls: true }],
  ])('%s: warns %s', async (_, warns, { tls, tokensFile: fromFile, ...env }: Record<string, string | boolean>) => {
    const server = tls ? ca.issue('plain-http-server') : null;
    const messages = await startUpLines(db.url, {
      ...(env as Record<string, string>),
      ...(server ? { IPAM_TLS_CERT_FILE: server.certFile, IPAM_TLS_KEY_FILE: server.keyFile } : {}),
      ...(fromFile ? { IPAM_TOKENS_FILE: tokensFile } : {}),
    });
    // started and listening, whichever it was
    expect(messages.map((m) => m.message)).toContainEqual(expect.stringMatching(/listening on/));
    expect(messages.filter((m) => CLEAR_TEXT.test(m.message))).toHaveLength(warns ? 1 : 0);
  });
});
