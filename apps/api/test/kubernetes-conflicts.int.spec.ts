import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@ipledger/messaging';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * Real contention on one pool: REST allocations (the group commit) race the consumer's releases
 * and StatefulSet reservations (fenced appends) on the same pool stream. A lost race is decided
 * again at the message's redelivery: no message may end refused or parked for it.
 */
describe('Kubernetes consumer under contention on one pool', () => {
  let bus: TestBus;
  let api: TestApi;
  let rv = 1000;

  beforeAll(async () => {
    bus = await createTestBus('conflicts');
    // one attempt before parking: a lost race counted as a failure would park at once
    api = await startTestApi('kubernetes_conflicts', { env: { ...bus.env, IPAM_KUBERNETES_MAX_ATTEMPTS: '1' } });
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  const meta = (name: string, namespace: string, annotations?: Record<string, string>): KubeObject['metadata'] => ({
    name,
    namespace,
    uid: randomUUID(),
    resourceVersion: String(++rv),
    annotations,
  });
  const conflictsRedelivered = async () => {
    const text = (await api.http().get('/metrics').expect(200)).text;
    return text
      .split('\n')
      .filter((line) => line.startsWith('ipledger_kubernetes_messages_total{') && line.includes('outcome="retried"'))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  };

  it('applies every message while REST allocations race it on the same pool', async () => {
    await api.http().post('/v1/pools').send({ name: 'hot', cidr: '10.70.0.0/21' }).expect(201);
    const pods = Array.from({ length: 60 }, (_, i) => ({ metadata: meta(`web-${i}`, 'shop') }));
    // an allocation for a pod waits until the watcher has sent that pod
    for (const pod of pods) await bus.publisher.change({ kind: 'pod', type: 'ADDED', object: pod });
    await bus.publisher.flush();
    await bus.idle();
    for (const pod of pods) {
      await api
        .http()
        .post('/v1/allocations')
        .send({
          handle: `h-${pod.metadata.name}`,
          node: 'n1',
          namespace: 'shop',
          pod: pod.metadata.name,
          podUid: pod.metadata.uid,
          pools: ['hot'],
        })
        .expect(201);
    }
    const statefulSets = Array.from({ length: 20 }, (_, i) => ({
      metadata: meta(`db-${i}`, 'shop', { 'ipam.ipledger.io/pool': 'hot' }),
      spec: { replicas: 2 },
    }));

    const rest = Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        api
          .http()
          .post('/v1/allocations')
          .send({ handle: `rest-${i}`, node: 'n1', namespace: 'other', pod: `rest-${i}`, pools: ['hot'] })
          .then((res) => res.status),
      ),
    );
    for (let i = 0; i < 60; i++) {
      await bus.publisher.change({ kind: 'pod', type: 'DELETED', object: pods[i] });
      if (i < 20) {
        await bus.publisher.change({ kind: 'statefulset', type: 'ADDED', object: statefulSets[i] });
        const grown = {
          ...statefulSets[i],
          metadata: { ...statefulSets[i].metadata, resourceVersion: String(++rv) },
          spec: { replicas: 4 },
        };
        await bus.publisher.change({ kind: 'statefulset', type: 'MODIFIED', object: grown });
      }
    }
    await bus.publisher.flush();
    expect(new Set(await rest)).toEqual(new Set([201]));
    await bus.idle(60_000);

    const { rows } = await api.db.pool.query<{ kind: string; key: string; status: string; parked: string | null }>(
      `SELECT kind, key, status, parked_sequence AS parked FROM kubernetes_objects ORDER BY kind, key`,
    );
    expect(rows).toHaveLength(80);
    // a release whose confirmation lost the race is decided again and finds the handle already free: "deleted"
    const expected = (kind: string) => (kind === 'pod' ? /^(released 1 handle\(s\)|deleted)$/ : /^reconciled$/);
    const applied = rows.filter((row) => row.parked === null && expected(row.kind).test(row.status));
    expect(rows.filter((row) => !applied.includes(row))).toEqual([]);
    for (const sts of statefulSets) {
      expect((await api.http().get(`/v1/statefulsets/shop/${sts.metadata.name}`).expect(200)).body.replicas).toBe(4);
    }
    const held = await api.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM allocations WHERE handle LIKE 'h-web-%'`);
    expect(Number(held.rows[0].n)).toBe(0);
    // the race was real: some messages lost it and came back
    expect(await conflictsRedelivered()).toBeGreaterThan(0);
  });
});
