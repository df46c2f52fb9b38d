import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { headers } from 'nats';
import { changeSubject, objectKey, type ChangeType, type KubeKind, type KubeObject, type LiveKey } from '@ipledger/messaging';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { listenApi, startTestApi, type TestApi } from '../../../test/support/test-api';
import { eventually } from '../../../test/support/eventually';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';

/** The consumer on its own: messages are published here as the watcher would, and checked over REST. */
describe('Kubernetes consumer (NATS JetStream -> commands)', () => {
  let bus: TestBus;
  let api: TestApi;
  let rv = 100;

  const object = (
    name: string,
    extra: Partial<KubeObject> & { namespace?: string; uid?: string; labels?: Record<string, string> } = {},
  ): KubeObject => ({
    metadata: {
      name,
      ...(extra.namespace ? { namespace: extra.namespace } : {}),
      uid: extra.uid ?? randomUUID(),
      resourceVersion: String(++rv),
      labels: extra.labels,
      annotations: extra.metadata?.annotations,
    },
    spec: extra.spec,
  });
  const publish = async (kind: KubeKind, type: ChangeType, obj: KubeObject) => {
    await bus.publisher.change({ kind, type, object: obj });
    await bus.publisher.flush();
  };
  const sync = (kind: KubeKind, items: LiveKey[]) => bus.publisher.synced(kind, items, String(++rv), new Date());
  const status = async (kind: string, key: string) =>
    (await api.db.pool.query('SELECT status FROM kubernetes_objects WHERE kind = $1 AND key = $2', [kind, key])).rows[0]?.status as
      | string
      | undefined;
  const streamEvents = async (streamId: string) =>
    (await api.db.pool.query('SELECT type, data, metadata FROM events WHERE stream_id = $1 ORDER BY version', [streamId])).rows;

  /** the durable consumer's acknowledged floor, -1 while it does not exist */
  const ackFloor = (durable: string) =>
    bus.jsm.consumers.info(bus.names.stream, durable).then(
      (info) => info.ack_floor.stream_seq,
      () => -1,
    );
  beforeAll(async () => {
    bus = await createTestBus('consumer');
    api = await startTestApi('kubernetes_consumer', { env: { ...bus.env, IPAM_LEAK_GRACE_SECONDS: '0' } });
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  it('applies Node labels with PUT semantics and records the watcher, the source and the message id', async () => {
    const node = object('worker-1', { labels: { 'pool-group': 'a', zone: 'z1' } });
    await publish('node', 'ADDED', node);
    await bus.idle();
    expect((await api.http().get('/v1/nodes/worker-1').expect(200)).body.labels).toEqual({ 'pool-group': 'a', zone: 'z1' });
    const modified = { ...node, metadata: { ...node.metadata, resourceVersion: String(++rv), labels: { 'pool-group': 'b' } } };
    await publish('node', 'MODIFIED', modified);
    await bus.idle();
    expect((await api.http().get('/v1/nodes/worker-1').expect(200)).body.labels).toEqual({ 'pool-group': 'b' });
    const [, second] = await streamEvents('node-worker-1');
    expect(second.metadata).toMatchObject({
      actor: 'watcher',
      source: 'kubernetes',
      correlationId: node.metadata.uid,
      messageId: `${node.metadata.uid}:${modified.metadata.resourceVersion}`,
      causationId: `${node.metadata.uid}:${modified.metadata.resourceVersion}`,
    });
    expect(second.metadata.streamSequence).toEqual(expect.any(Number));
    expect(await status('node', 'worker-1')).toBe('labels applied');
  });

  it('turns IPPool objects into pools: create, update, grow, refuse a shrink in use, refuse deleting a pool in use, delete', async () => {
    const pool = object('rack-1', {
      labels: { 'pool-group': 'b' },
      spec: { cidr: '10.60.0.0/24', gateway: '10.60.0.254', reserved: ['10.60.0.1'] },
    });
    await publish('ippool', 'ADDED', pool);
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-1').expect(200)).body).toMatchObject({
      cidr: '10.60.0.0/24',
      gateway: '10.60.0.254',
      labels: { 'pool-group': 'b' },
      reserved: ['10.60.0.1'],
      disabled: false,
    });
    await publish('ippool', 'MODIFIED', {
      ...pool,
      metadata: { ...pool.metadata, resourceVersion: String(++rv) },
      spec: { ...pool.spec, disabled: true },
    });
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-1').expect(200)).body.disabled).toBe(true);

    // cidr grows in place...
    const withCidr = (cidr: string) =>
      publish('ippool', 'MODIFIED', {
        ...pool,
        metadata: { ...pool.metadata, resourceVersion: String(++rv) },
        spec: { ...pool.spec, cidr },
      });
    await withCidr('10.60.0.0/23');
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-1').expect(200)).body).toMatchObject({ cidr: '10.60.0.0/23', capacity: '510' });
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'h-up', node: 'worker-1', namespace: 'apps', pod: 'up', pools: ['rack-1'], ip: '10.60.1.5' })
      .expect(201);
    // ...and shrinks only when nothing is in the way; the refusal is the object's status
    await withCidr('10.60.0.0/24');
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-1').expect(200)).body.cidr).toBe('10.60.0.0/23');
    expect(await status('ippool', 'rack-1')).toMatch(
      /^refused: POOL_IN_USE: pool "rack-1" cannot become 10.60.0.0\/24: 10.60.1.5 is held by handle "h-up"/,
    );
    await api.http().delete('/v1/allocations/h-up').expect(204);
    await withCidr('10.60.0.0/24');
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-1').expect(200)).body).toMatchObject({ cidr: '10.60.0.0/24', capacity: '254' });
    // the gateway is immutable too
    await publish('ippool', 'MODIFIED', {
      ...pool,
      metadata: { ...pool.metadata, resourceVersion: String(++rv) },
      spec: { ...pool.spec, gateway: '10.60.0.253' },
    });
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-1').expect(200)).body.gateway).toBe('10.60.0.254');
    expect(await status('ippool', 'rack-1')).toMatch(
      /^refused: INVALID_ARGUMENT: pool "rack-1" has gateway 10.60.0.254; it cannot become 10.60.0.253/,
    );

    await publish('ippool', 'MODIFIED', { ...pool, metadata: { ...pool.metadata, resourceVersion: String(++rv) } });
    await bus.idle();
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'h-busy', node: 'worker-1', namespace: 'apps', pod: 'busy', pools: ['rack-1'] })
      .expect(201);
    await publish('ippool', 'DELETED', pool);
    await bus.idle();
    await api.http().get('/v1/pools/rack-1').expect(200);
    expect(await status('ippool', 'rack-1')).toMatch(/^refused: POOL_IN_USE: /);

    // the IPPool is gone for good; the next IPPool sync tries again
    await api.http().delete('/v1/allocations/h-busy').expect(204);
    await sync('ippool', []);
    await bus.idle();
    await api.http().get('/v1/pools/rack-1').expect(404);
    expect(await status('ippool', 'rack-1')).toBe('deleted');
  });

  it('turns an IPPool with blocks and a reuse delay into a pool whose nodes claim blocks; its blocks cannot change', async () => {
    const pool = object('rack-blocks', {
      spec: { cidr: '10.66.0.0/24', blockSize: 26, blockAffinity: 'strict', blockReleaseSeconds: 60, reuseDelaySeconds: 30 },
    });
    await publish('ippool', 'ADDED', pool);
    await bus.idle();
    expect(await status('ippool', 'rack-blocks')).toBe('created');
    expect((await api.http().get('/v1/pools/rack-blocks').expect(200)).body).toMatchObject({
      cidr: '10.66.0.0/24',
      blockSize: 26,
      blockAffinity: 'strict',
      blockReleaseSeconds: 60,
      reuseDelaySeconds: 30,
    });
    for (const node of ['blk-a', 'blk-b'])
      await api
        .http()
        .post('/v1/allocations')
        .send({ handle: `h-${node}`, node, namespace: 'apps', pod: node, pools: ['rack-blocks'] })
        .expect(201);
    const blocks = (await api.http().get('/v1/pools/rack-blocks/blocks').expect(200)).body.items;
    expect(blocks.map((b: { node: string; used: number }) => [b.node, b.used]).sort()).toEqual([
      ['blk-a', 1],
      ['blk-b', 1],
    ]);
    expect(new Set(blocks.map((b: { cidr: string }) => b.cidr)).size).toBe(2);

    await publish('ippool', 'MODIFIED', {
      ...pool,
      metadata: { ...pool.metadata, resourceVersion: String(++rv) },
      spec: { ...pool.spec, blockSize: 27 },
    });
    await bus.idle();
    expect((await api.http().get('/v1/pools/rack-blocks').expect(200)).body.blockSize).toBe(26);
    expect(await status('ippool', 'rack-blocks')).toMatch(
      /^refused: INVALID_ARGUMENT: pool "rack-blocks" has blocks blockSize 26, strict, 60s to release; its blocks cannot change/,
    );
  });

  it('reserves a range for a StatefulSet from its pool annotation and releases it on delete', async () => {
    await publish('ippool', 'ADDED', object('sts-pool', { spec: { cidr: '10.62.0.0/24' } }));
    // the pool first: a StatefulSet applied before its pool exists waits for the next IPPool sync (tested below)
    await bus.idle();
    const sts = object('db', {
      namespace: 'apps',
      metadata: { annotations: { 'ipam.ipledger.io/pool': 'sts-pool' } } as unknown as KubeObject['metadata'],
      spec: { replicas: 3, ordinals: { start: 1 } },
    });
    await publish('statefulset', 'ADDED', sts);
    await bus.idle();
    expect((await api.http().get('/v1/statefulsets/apps/db').expect(200)).body).toMatchObject({
      replicas: 3,
      ordinalsStart: 1,
      pool: 'sts-pool',
      mode: 'continuous',
      range: { start: '10.62.0.1', end: '10.62.0.3' },
    });
    const pod = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'h-db-2', node: 'worker-1', namespace: 'apps', pod: 'db-2' })
      .expect(201);
    expect(pod.body.items[0].ip).toBe('10.62.0.2');
    await publish('statefulset', 'DELETED', sts);
    await bus.idle();
    await api.http().get('/v1/statefulsets/apps/db').expect(404);
    await api.http().get('/v1/allocations/h-db-2').expect(404);
  });

  it('gives a StatefulSet that came before its pool a range once the pool exists, and deletes one that vanished', async () => {
    const annotated = (name: string, pool: string) =>
      object(name, {
        namespace: 'apps',
        metadata: { annotations: { 'ipam.ipledger.io/pool': pool } } as unknown as KubeObject['metadata'],
        spec: { replicas: 2 },
      });
    const early = annotated('early', 'late-pool');
    await publish('statefulset', 'ADDED', early);
    await bus.idle();
    expect((await api.http().get('/v1/statefulsets/apps/early').expect(200)).body).toMatchObject({
      mode: 'dynamic',
      range: null,
      reason: expect.stringContaining('late-pool: not found'),
    });
    const pool = object('late-pool', { spec: { cidr: '10.64.0.0/24' } });
    await publish('ippool', 'ADDED', pool);
    await sync('ippool', [{ key: 'late-pool', uid: pool.metadata.uid }]);
    await bus.idle();
    expect((await api.http().get('/v1/statefulsets/apps/early').expect(200)).body).toMatchObject({
      mode: 'continuous',
      range: { start: '10.64.0.1', end: '10.64.0.2' },
    });
    expect(await status('statefulset', 'apps/early')).toBe('reconciled');

    // deleted while nobody watched: two consecutive StatefulSet syncs without it release its range
    const live = [{ key: 'apps/other', uid: 'x' }];
    await sync('statefulset', live);
    await bus.idle();
    await api.http().get('/v1/statefulsets/apps/early').expect(200);
    await sync('statefulset', live);
    await bus.idle();
    await api.http().get('/v1/statefulsets/apps/early').expect(404);
    expect(await status('statefulset', 'apps/early')).toBe('deleted');
    expect((await api.http().get('/v1/pools/late-pool').expect(200)).body.reservedCount).toBe('0');
  });

  it("releases a deleted pod's addresses, but never those given to a newer pod of the same name", async () => {
    await publish('ippool', 'ADDED', object('pods', { spec: { cidr: '10.63.0.0/24' } }));
    await bus.idle();
    const oldUid = randomUUID();
    const newUid = randomUUID();
    const alloc = (handle: string, podUid?: string, owner?: string) =>
      api
        .http()
        .post('/v1/allocations')
        .send({ handle, node: 'worker-1', namespace: 'web', pod: 'web-0', podUid, owner, pools: ['pods'] })
        .expect(201);
    // an allocation for a pod waits until the watcher has sent that pod (its annotations may choose the pool)
    await publish('pod', 'ADDED', object('web-0', { namespace: 'web', uid: oldUid }));
    await alloc('h-old', oldUid);
    await alloc('h-unknown', undefined, 'pod');
    await publish('pod', 'ADDED', object('web-0', { namespace: 'web', uid: newUid }));
    await alloc('h-new', newUid);
    const before = await api.eventCount();
    await publish('pod', 'DELETED', object('web-0', { namespace: 'web', uid: oldUid }));
    await bus.idle();
    await api.http().get('/v1/allocations/h-old').expect(404);
    await api.http().get('/v1/allocations/h-unknown').expect(404);
    await api.http().get('/v1/allocations/h-new').expect(200);
    expect(await api.eventCount()).toBe(before + 2);
    const history = await api.db.pool.query(`SELECT data FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = 'h-old'`);
    expect(history.rows[0].data.reason).toEqual({ cause: 'pod-deleted', podUid: oldUid });
  });

  it('terminates a malformed message with a metric, and goes on with the next ones', async () => {
    const js = bus.nc.jetstream();
    await js.publish(changeSubject(bus.names, 'node'), Buffer.from('{"not json'));
    await js.publish(
      changeSubject(bus.names, 'node'),
      Buffer.from(JSON.stringify({ kind: 'node', type: 'ADDED', object: { metadata: { name: 'x' } } })),
    );
    await publish('node', 'ADDED', object('worker-2', { labels: { a: 'b' } }));
    await bus.idle();
    await api.http().get('/v1/nodes/worker-2').expect(200);
    await api.http().get('/v1/nodes/x').expect(404);
    const metrics = (await api.http().get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/ipledger_kubernetes_messages_total\{kind="node",outcome="malformed"\} 2/);
  });

  it('redelivers a message later when applying it fails for a passing reason, then applies it', async () => {
    const retried = async () =>
      Number(
        /ipledger_kubernetes_messages_total\{kind="node",outcome="retried"\} (\d+)/.exec((await api.http().get('/metrics')).text)?.[1] ?? 0,
      );
    // the API's consumer running first (run alone, this test would meet it still starting)
    await eventually(
      () => ackFloor(bus.durable),
      (seq) => seq >= 0,
      15_000,
    );
    // the consumer's own table gone for a moment: every delivery fails until it is back
    await api.db.pool.query('ALTER TABLE kubernetes_objects RENAME TO kubernetes_objects_away');
    try {
      await publish('node', 'ADDED', object('worker-9', { labels: { a: '1' } }));
      // and one change alone in its message, as an older watcher sends: settled on its own path
      const single = { kind: 'node', type: 'ADDED', object: object('worker-10', { labels: { a: '2' } }) };
      await bus.nc.jetstream().publish(changeSubject(bus.names, 'node'), Buffer.from(JSON.stringify(single)));
      expect(await eventually(retried, (n) => n >= 4, 15_000)).toBeGreaterThanOrEqual(4);
      await api.http().get('/v1/nodes/worker-9').expect(404);
      await api.http().get('/v1/nodes/worker-10').expect(404);
    } finally {
      await api.db.pool.query('ALTER TABLE kubernetes_objects_away RENAME TO kubernetes_objects');
    }
    await bus.idle(30_000);
    expect((await api.http().get('/v1/nodes/worker-9').expect(200)).body.labels).toEqual({ a: '1' });
    expect((await api.http().get('/v1/nodes/worker-10').expect(200)).body.labels).toEqual({ a: '2' });
  });

  it('starts its consumer once the database lets it: a start that failed is tried again', async () => {
    const durable = 'ipledger-api-late';
    const consumed = () => ackFloor(durable);
    // a second replica boots while the consumer's own table is away: its first start fails
    await api.db.pool.query('ALTER TABLE kubernetes_objects RENAME TO kubernetes_objects_away');
    let late: INestApplication | undefined;
    try {
      late = await listenApi(api.db.url, { ...bus.env, IPAM_NATS_DURABLE: durable });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await consumed()).toBe(-1);
    } finally {
      await api.db.pool.query('ALTER TABLE kubernetes_objects_away RENAME TO kubernetes_objects');
    }
    try {
      await publish('node', 'ADDED', object('worker-late', { labels: { a: 'late' } }));
      const last = (await bus.jsm.streams.info(bus.names.stream)).state.last_seq;
      expect(await eventually(consumed, (seq) => seq >= last, 30_000)).toBeGreaterThanOrEqual(last);
    } finally {
      await late?.close();
    }
  });

  it('collects the address of a pod missing from two consecutive pod syncs, with the evidence', async () => {
    const uid = randomUUID();
    for (const name of ['gone', 'live']) await publish('pod', 'ADDED', object(name, { namespace: 'web', uid }));
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'h-gone', node: 'worker-1', namespace: 'web', pod: 'gone', podUid: uid, pools: ['pods'] })
      .expect(201);
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'h-live', node: 'worker-1', namespace: 'web', pod: 'live', podUid: uid, pools: ['pods'] })
      .expect(201);
    const live = [
      { key: 'web/live', uid },
      { key: 'web/web-0', uid: 'whatever' },
    ];
    await sync('pod', live);
    await bus.idle();
    await api.http().get('/v1/allocations/h-gone').expect(200);
    await sync('pod', live);
    await bus.idle();
    await api.http().get('/v1/allocations/h-gone').expect(404);
    await api.http().get('/v1/allocations/h-live').expect(200);
    const { rows } = await api.db.pool.query(
      `SELECT data, metadata FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = 'h-gone'`,
    );
    expect(rows[0].data.reason).toMatchObject({ cause: 'pod-missing', graceSeconds: 0, syncs: [expect.any(Object), expect.any(Object)] });
    expect(rows[0].metadata).toMatchObject({ actor: 'watcher', source: 'kubernetes' });
  });

  it('appends nothing when every message is delivered again, or the latest of each object is published again', async () => {
    await bus.idle();
    const before = await api.eventCount();
    // every message delivered again, with its own stream sequence: a second consumer from the start of the stream
    const again = await createApp(loadConfig({ ...bus.env, DATABASE_URL: api.db.url, IPAM_NATS_DURABLE: `${bus.durable}_again` }), {
      logger: false,
    });
    await again.init();
    try {
      // every message of the stream taken and acknowledged by the second consumer: redelivered, not merely not yet seen
      const { state } = await bus.jsm.streams.info(bus.names.stream);
      expect(state.messages).toBeGreaterThan(5);
      const info = await eventually(
        () => bus.jsm.consumers.info(bus.names.stream, `${bus.durable}_again`).catch(() => null),
        (i) => i !== null && i.delivered.stream_seq >= state.last_seq && i.num_pending === 0 && i.num_ack_pending === 0,
        30_000,
        'the second consumer to take and acknowledge every message',
      );
      expect(info!.ack_floor.stream_seq).toBeGreaterThanOrEqual(state.last_seq);
    } finally {
      await again.close();
    }
    expect(await api.eventCount()).toBe(before);
    // a watcher restarted after the duplicate window publishes each live object as it is now, under new sequences
    const vanished = await api.db.pool.query(
      `SELECT kind || ' ' || key AS id FROM kubernetes_objects WHERE deleted AND status = 'deleted'`,
    );
    const republished = await republishLatest(bus, new Set(vanished.rows.map((r) => r.id)));
    await bus.idle();
    expect(republished).toBeGreaterThan(5);
    expect(await api.eventCount()).toBe(before);
  });

  it('never releases an external allocation: not when a pod of that name is deleted, not when pod syncs miss it', async () => {
    const alloc = async (handle: string, extra: Record<string, string>) =>
      (
        await api
          .http()
          .post('/v1/allocations')
          .send({ handle, node: 'worker-1', namespace: 'vms', pod: handle, pools: ['pods'], ...extra })
          .expect(201)
      ).body.items[0];
    expect(await alloc('vm-1', {})).toMatchObject({ owner: 'external', podUid: null });
    expect(await alloc('lb-1', { owner: 'external', podUid: randomUUID() })).toMatchObject({ owner: 'external' });
    const podUid = randomUUID();
    await publish('pod', 'ADDED', object('pod-1', { namespace: 'vms', uid: podUid }));
    expect(await alloc('pod-1', { podUid })).toMatchObject({ owner: 'pod' });
    await publish('pod', 'DELETED', object('vm-1', { namespace: 'vms' }));
    await sync('pod', []);
    await bus.idle();
    await sync('pod', []);
    await bus.idle();
    await sync('pod', []);
    await bus.idle();
    await api.http().get('/v1/allocations/pod-1').expect(404);
    expect((await api.http().get('/v1/allocations/vm-1').expect(200)).body.items[0].owner).toBe('external');
    await api.http().get('/v1/allocations/lb-1').expect(200);
    expect((await api.http().get('/v1/allocations?namespace=vms').expect(200)).body.items.map((i: { handle: string }) => i.handle)).toEqual(
      ['lb-1', 'vm-1'],
    );
  });
});

/**
 * The last change of every object, published again with a new message id: duplicates JetStream
 * cannot drop. Each goes alone, as a watcher of the previous release published it. Objects found
 * vanished by syncs are left out: a watcher would not list them again.
 */
async function republishLatest(bus: TestBus, vanished: Set<string>): Promise<number> {
  const info = await bus.jsm.streams.info(bus.names.stream);
  const latest = new Map<string, { subject: string; data: Buffer }>();
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const msg = await bus.jsm.streams.getMessage(bus.names.stream, { seq }).catch(() => null);
    if (!msg || msg.subject.endsWith('.sync')) continue;
    try {
      const body = JSON.parse(Buffer.from(msg.data).toString());
      const changes: Array<{ type: ChangeType; object: KubeObject }> = Array.isArray(body.changes) ? body.changes : [body];
      for (const { type, object } of changes)
        if (!vanished.has(`${body.kind} ${objectKey(object)}`))
          latest.set(`${msg.subject} ${objectKey(object)}`, {
            subject: msg.subject,
            data: Buffer.from(JSON.stringify({ kind: body.kind, type, object })),
          });
    } catch {
      // the malformed messages of an earlier test
    }
  }
  const js = bus.nc.jetstream();
  for (const [key, { subject, data }] of latest) {
    const h = headers();
    h.set('Nats-Msg-Id', `again-${key}`);
    await js.publish(subject, data, { headers: h });
  }
  return latest.size;
}
