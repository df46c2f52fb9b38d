import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiProcess } from '../support/api-process';
import { startConnectProxy, type TestProxy } from '../support/connect-proxy';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api';
import { createTestBus, type TestBus } from '../support/test-bus';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { eventually } from '../support/eventually';
import { startWatcherProcess } from '../support/watcher-process';

/** `url` with credentials whose password holds "secret" (the servers of the run do not check them). */
function withCredentials(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString().replace(/\/$/, '');
}

/**
 * Start-ups of the built API and watcher with passwords in NATS_URL, DATABASE_URL and the
 * watcher's proxy URL: every line either prints names the server but not the password (errors
 * go through the same redaction: libs/runtime/src/redact.spec.ts).
 */
describe('no secret in a log line', () => {
  let db: TestDatabase;
  let bus: TestBus;
  const natsUrl = withCredentials(process.env.TEST_NATS_URL!, 'u', 'nats-secret');

  beforeAll(async () => {
    db = await createTestDatabase('redaction');
    bus = await createTestBus('redaction', natsUrl);
  });
  afterAll(async () => {
    await bus.close();
    await db.drop();
  });

  it('API: NATS_URL and DATABASE_URL with passwords', async () => {
    // the embedded server checks its password; a trust-auth server (TEST_DATABASE_URL) ignores the one added here
    const url = new URL(db.url);
    url.password ||= `pg-secret-${randomBytes(6).toString('hex')}`;
    const { password } = url;
    const api = await startApiProcess(url.toString(), { from: 'dist', env: bus.env });
    await api.stop();
    const text = api.lines.join('\n');
    expect(text).toContain('consuming Kubernetes objects from nats://u:***@127.0.0.1:');
    expect(text).not.toContain('secret');
    expect(text).not.toContain(password);
  });

  describe('watcher', () => {
    let kube: FakeKubeApi;
    let proxy: TestProxy;
    const dir = mkdtempSync(join(tmpdir(), 'ipledger-redaction-'));
    beforeAll(async () => {
      kube = await startFakeKubeApi();
      proxy = await startConnectProxy({ credentials: 'proxy-user:proxy-secret' });
    });
    afterAll(async () => {
      await proxy.close();
      await kube.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('NATS_URL and a proxy URL with passwords', async () => {
      const watcher = await startWatcherProcess({
        ...bus.env,
        KUBECONFIG: kube.writeKubeconfig(dir, { 'proxy-url': withCredentials(proxy.url, 'proxy-user', 'proxy-secret') }),
        IPAM_WATCHER_KINDS: 'node',
      });
      try {
        await watcher.printed(/publishing cluster default to stream/);
        // the proxy is really used, with the credentials the log leaves out
        await eventually(
          () => Promise.resolve(proxy.requests.some((r) => r.method === 'CONNECT' && r.proxyAuthorization)),
          (used) => used,
        );
        expect(proxy.requests).toContainEqual(expect.objectContaining({ method: 'CONNECT', proxyAuthorization: expect.any(String) }));
      } finally {
        await watcher.stop();
      }
      const text = watcher.lines.join('\n');
      expect(text).toContain('waiting for NATS at nats://u:***@127.0.0.1:');
      expect(text).not.toContain('secret');
    });
  });
});
