import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { connect } from 'nats';
import { natsConnectOptions, natsSecurity } from '@ipledger/messaging';
import { loadConfig } from '../../apps/api/src/config';
import { createApp } from '../../apps/api/src/create-app';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api';
import { createNatsOperator, type NatsOperator } from '../support/nats-creds';
import { startPrivateNats, type PrivateNats } from '../support/private-nats';
import { createTestCa, type IssuedCertificate, type TestCa } from '../support/test-ca';
import { createTestBus, type TestBus } from '../support/test-bus';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { eventually } from '../support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../support/watcher-process';

/**
 * Issue 20, "NATS connections have no TLS or credentials options": a private nats-server that
 * requires TLS (`--tls`), client certificates (`--tlsverify`) and a user of its operator (a
 * `.creds` file). The real watcher and the real API meet on it through `tls://` and the
 * IPAM_NATS_* files; a client missing any one of them is refused.
 */
describe('NATS over TLS with client certificates and .creds (IPAM_NATS_CA_FILE, _CERT_FILE, _KEY_FILE, _CREDS_FILE)', () => {
  let dir: string;
  let ca: TestCa;
  let client: IssuedCertificate;
  let operator: NatsOperator;
  let nats: PrivateNats;
  let url: string;
  let natsEnv: NodeJS.ProcessEnv;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let db: TestDatabase;
  let app: INestApplication;
  let watcher: WatcherProcess;

  /** one connection attempt with what these variables give, no retries */
  const tryConnect = async (env: NodeJS.ProcessEnv, natsUrl = url) => {
    const nc = await connect({ ...natsConnectOptions(natsUrl, natsSecurity(env, natsUrl)), reconnect: false, timeout: 5000 });
    await nc.flush();
    await nc.close();
    return 'connected';
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-tls-'));
    ca = createTestCa('nats');
    const server = ca.issue('nats-server');
    client = ca.issue('ipledger');
    operator = createNatsOperator(dir);
    writeFileSync(join(dir, 'server.conf'), operator.serverConfig);
    nats = await startPrivateNats([
      '--tls',
      '--tlscert',
      server.certFile,
      '--tlskey',
      server.keyFile,
      '--tlsverify',
      '--tlscacert',
      ca.caFile,
      '-c',
      join(dir, 'server.conf'),
    ]);
    url = nats.url.replace('nats://', 'tls://');
    natsEnv = {
      IPAM_NATS_CA_FILE: ca.caFile,
      IPAM_NATS_CERT_FILE: client.certFile,
      IPAM_NATS_KEY_FILE: client.keyFile,
      IPAM_NATS_CREDS_FILE: operator.credsFile,
    };
    bus = await createTestBus('nats_tls', url, { connect: natsConnectOptions(url, natsSecurity(natsEnv, url)) });
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500 });
    db = await createTestDatabase('nats_tls');
    app = await createApp(loadConfig({ ...bus.env, ...natsEnv, DATABASE_URL: db.url, PORT: '0' }), { logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await watcher?.stop();
    await app?.close();
    await db?.drop();
    await bus?.close();
    await kube?.close();
    await nats?.close();
    ca?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries a change from the watcher to the API over tls:// with a client certificate and .creds', async () => {
    kube.upsert('node', { metadata: { name: 'tls-node', labels: { 'pool-group': 'rack-tls' } } });
    watcher = await startWatcherProcess({ ...bus.env, ...natsEnv, KUBECONFIG: kube.writeKubeconfig(dir), IPAM_WATCHER_KINDS: 'node' });
    const ready = await eventually(
      () => fetch(`${watcher.url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { checks: unknown } })),
      (r) => r.status === 200,
      20_000,
    );
    expect(ready.body.checks).toEqual({ nats: 'ok', node: 'synced' });
    const node = await eventually(
      () => db.pool.query(`SELECT labels FROM nodes WHERE name = 'tls-node'`),
      (r) => r.rowCount === 1,
      20_000,
    );
    expect(node.rows[0].labels).toEqual({ 'pool-group': 'rack-tls' });
  });

  it('refuses a client without the CA, without a client certificate, or without the creds', async () => {
    expect(await tryConnect(natsEnv)).toBe('connected');
    const { IPAM_NATS_CA_FILE: _ca, ...withoutCa } = natsEnv;
    await expect(tryConnect(withoutCa)).rejects.toThrow(/certificate/i);
    const { IPAM_NATS_CERT_FILE: _cert, IPAM_NATS_KEY_FILE: _key, ...withoutCert } = natsEnv;
    await expect(tryConnect(withoutCert)).rejects.toThrow();
    const { IPAM_NATS_CREDS_FILE: _creds, ...withoutCreds } = natsEnv;
    await expect(tryConnect(withoutCreds)).rejects.toThrow(/Authorization Violation/);
  });

  it('never falls back to plain TCP: a tls:// URL to a server without TLS is refused', async () => {
    const plain = await startPrivateNats();
    try {
      expect(await tryConnect({}, plain.url)).toBe('connected');
      await expect(tryConnect({}, plain.url.replace('nats://', 'tls://'))).rejects.toThrow(/tls/i);
    } finally {
      await plain.close();
    }
  });

  it('refuses unreadable files and a certificate without its key at start-up', () => {
    expect(() => natsSecurity({ IPAM_NATS_CREDS_FILE: join(dir, 'absent.creds') }, url)).toThrow(
      /IPAM_NATS_CREDS_FILE .*absent.creds cannot be read/,
    );
    expect(() => natsSecurity({ IPAM_NATS_CERT_FILE: client.certFile }, url)).toThrow(
      'IPAM_NATS_CERT_FILE and IPAM_NATS_KEY_FILE go together',
    );
  });
});
