import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Pool } from 'pg';
import type { KubeObject } from '@ipledger/messaging';
import { loadConfig } from '../../apps/api/src/config';
import { createApp } from '../../apps/api/src/create-app';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api';
import { createTestBus, type TestBus } from '../support/test-bus';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { eventually } from '../support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../support/watcher-process';

/**
 * Issue 20, "only what is needed travels": a pod and a StatefulSet carrying a secret in an env
 * value (and volumes, managedFields, annotations nobody reads) go from a Kubernetes API server
 * through the real watcher and NATS into the real API's consumer. The secret is in no message of
 * the stream and in no row of any table, while what allocation needs still arrives.
 */
const SECRET = 'SECRET_VALUE_123';

const managedFields = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:metadata': { 'f:annotations': { [SECRET]: {} } } } }];
const container = {
  name: 'app',
  image: 'nginx',
  env: [{ name: 'DB_PASSWORD', value: SECRET }],
  volumeMounts: [{ name: 'creds', mountPath: '/s' }],
};
const lastApplied = { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ env: SECRET }) };

/** Every message the stream holds, read back from JetStream itself. */
async function streamMessages(bus: TestBus): Promise<Array<{ subject: string; text: string }>> {
  const { state } = await bus.jsm.streams.info(bus.names.stream);
  const messages = [];
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const message = await bus.jsm.streams.getMessage(bus.names.stream, { seq });
    messages.push({ subject: message.subject, text: Buffer.from(message.data).toString('utf8') });
  }
  return messages;
}

/** Every row of every table of the database, as text. */
async function allRows(pool: Pool): Promise<Array<{ table: string; text: string }>> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const rows = [];
  for (const { name } of tables) {
    const { rows: found } = await pool.query<{ text: string }>(`SELECT t::text AS text FROM ${name} t`);
    rows.push(...found.map((r) => ({ table: name, text: r.text })));
  }
  return rows;
}

const leaks = (items: Array<{ text: string }>) => items.filter((item) => item.text.includes(SECRET));

async function startConsumer(db: TestDatabase, bus: TestBus): Promise<INestApplication> {
  const env = { ...bus.env, DATABASE_URL: db.url, PORT: '0', IPAM_DEFAULT_MATCH_LABEL: 'pool-group' };
  const app = await createApp(loadConfig(env), { logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('only what is needed travels (watcher -> NATS -> API -> PostgreSQL)', () => {
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let db: TestDatabase;
  let app: INestApplication;
  let watcher: WatcherProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'only-needed-'));
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500 });
    bus = await createTestBus('only_needed');
    db = await createTestDatabase('only_needed');
    app = await startConsumer(db, bus);
    kube.upsert('node', {
      metadata: { name: 'worker-1', labels: { 'pool-group': 'rack-a' }, annotations: lastApplied, managedFields } as never,
      status: {
        conditions: [{ type: 'Ready', status: 'True', message: SECRET, lastTransitionTime: '2026-01-01T00:00:00Z' }],
        images: [{ names: [SECRET] }],
      },
    });
    kube.upsert('ippool', {
      metadata: { name: 'rack-a', labels: { 'pool-group': 'rack-a' } },
      spec: { cidr: '10.72.0.0/24', note: SECRET },
    });
    const template = {
      metadata: { labels: { app: 'db' }, annotations: { 'checksum/secret': SECRET } },
      spec: {
        nodeSelector: { 'pool-group': 'rack-a' },
        containers: [container],
        volumes: [{ name: 'creds', secret: { secretName: SECRET } }],
      },
    };
    const sts = kube.upsert('statefulset', {
      metadata: { name: 'db', namespace: 'apps', annotations: lastApplied, managedFields } as never,
      spec: { replicas: 2, serviceName: SECRET, template },
    });
    kube.upsert('pod', {
      metadata: {
        name: 'db-0',
        namespace: 'apps',
        labels: { app: 'db' },
        annotations: { ...lastApplied, 'ipam.ipledger.io/pool': 'rack-a' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata.uid, controller: true }],
        managedFields,
      } as never,
      spec: { nodeName: 'worker-1', containers: [container], volumes: [{ name: 'creds', secret: { secretName: SECRET } }] },
      // an address outside every pool: one inside would be adopted (docs/api.md, adopting a running cluster), racing the StatefulSet's reservation
      status: { phase: 'Running', podIP: '10.99.0.7', podIPs: [{ ip: '10.99.0.7' }], containerStatuses: [{ name: 'app', image: SECRET }] },
    });
    watcher = await startWatcherProcess({ ...bus.env, KUBECONFIG: kube.writeKubeconfig(dir), IPAM_WATCHER_TIMEOUT_SECONDS: '2' });
  });
  afterAll(async () => {
    await watcher?.stop();
    await app?.close();
    await db?.drop();
    await bus?.close();
    await kube?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes and stores no env value, volume, managedFields or foreign annotation, while allocation gets what it needs', async () => {
    // the range comes from the pod template's nodeSelector: it travelled
    const sts = await eventually(
      () => db.pool.query(`SELECT range_start FROM statefulsets WHERE namespace = 'apps' AND name = 'db'`),
      (r) => r.rows[0]?.range_start != null,
      20_000,
    );
    expect(sts.rows[0].range_start).toBe('10.72.0.1');
    const pod = await eventually(
      () => db.pool.query(`SELECT status FROM kubernetes_objects WHERE kind = 'pod' AND key = 'apps/db-0'`),
      (r) => r.rowCount === 1,
      20_000,
    );
    expect(pod.rows[0].status).toBe('seen');
    await bus.idle();

    const messages = await streamMessages(bus);
    expect(messages.length).toBeGreaterThanOrEqual(8); // four changes and four sync markers at least
    expect(leaks(messages)).toEqual([]);
    // a message carries one change, or (a watcher of this release) a batch of them
    const changesOf = (kind: string) =>
      messages
        .filter((m) => m.subject === `${bus.names.subjectPrefix}.${kind}`)
        .flatMap((m) => {
          const body = JSON.parse(m.text) as { changes?: Array<{ object: KubeObject }>; object: KubeObject };
          return body.changes ?? [body];
        });
    const published = changesOf('pod');
    expect(published).toHaveLength(1);
    const object = published[0].object;
    expect(object.metadata).toMatchObject({
      name: 'db-0',
      namespace: 'apps',
      labels: { app: 'db' },
      annotations: { 'ipam.ipledger.io/pool': 'rack-a' },
      ownerReferences: [{ kind: 'StatefulSet', name: 'db', controller: true }],
    });
    expect(object.spec).toEqual({ nodeName: 'worker-1' });
    expect(object.status).toEqual({ phase: 'Running', podIPs: [{ ip: '10.99.0.7' }] });
    expect(changesOf('node')[0].object.status).toEqual({
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    });

    const rows = await allRows(db.pool);
    expect(rows.some((r) => r.table === 'public.kubernetes_objects')).toBe(true);
    expect(leaks(rows)).toEqual([]);
  });
});

describe("an older watcher's whole objects, and rows an older API stored whole", () => {
  let bus: TestBus;
  let db: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    bus = await createTestBus('older_watcher');
    db = await createTestDatabase('older_watcher');
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
    await bus?.close();
  });

  it('are trimmed before anything is applied or stored, and still reconcile', async () => {
    const whole = (name: string, resourceVersion: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name, namespace: 'apps', uid: `uid-${name}`, resourceVersion, annotations: lastApplied, managedFields } as never,
      spec: {
        replicas: 2,
        template: { spec: { nodeSelector: { 'pool-group': 'rack-a' }, containers: [container] } },
      },
    });
    // what the previous release stored: the whole StatefulSet, refused then (its pool did not exist yet)
    await db.pool.query(
      `INSERT INTO kubernetes_objects (kind, key, uid, resource_version, stream_sequence, deleted, status, object)
       VALUES ('statefulset', 'apps/stored', 'uid-stored', '1', 0, false, 'refused: NO_POOL_MATCHES: none', $1)`,
      [whole('stored', '1')],
    );
    app = await startConsumer(db, bus);
    await bus.publisher.change({
      kind: 'ippool',
      type: 'ADDED',
      object: {
        metadata: { name: 'rack-a', uid: 'p', resourceVersion: '2', labels: { 'pool-group': 'rack-a' } },
        spec: { cidr: '10.73.0.0/24' },
      },
    });
    await bus.publisher.change({ kind: 'statefulset', type: 'ADDED', object: whole('legacy', '3') });
    await bus.publisher.synced('ippool', [{ key: 'rack-a', uid: 'p' }], '4', new Date());
    await bus.publisher.flush();
    await bus.idle();
    const ranges = await eventually(
      () => db.pool.query(`SELECT name, range_start FROM statefulsets WHERE namespace = 'apps' ORDER BY name`),
      (r) => r.rows.length === 2,
    );
    expect(ranges.rows).toEqual([
      { name: 'legacy', range_start: expect.any(String) },
      { name: 'stored', range_start: expect.any(String) },
    ]);
    const { rows: stored } = await db.pool.query(`SELECT key, object FROM kubernetes_objects WHERE kind = 'statefulset' ORDER BY key`);
    expect(stored.map((r) => r.object.spec)).toEqual([
      { replicas: 2, template: { spec: { nodeSelector: { 'pool-group': 'rack-a' } } } },
      { replicas: 2, template: { spec: { nodeSelector: { 'pool-group': 'rack-a' } } } },
    ]);
    expect(leaks(await allRows(db.pool))).toEqual([]);
  });
});
