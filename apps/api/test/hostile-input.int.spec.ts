import { LabelSelector, MAX_SELECTOR_REQUIREMENTS } from '@ipledger/domain';
import { poolPageSql } from '@ipledger/projections';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/** Defects found by attacking the API (issue 13): each answer must be a 4xx, never a 500, and append nothing. */
describe('hostile input', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('hostile');
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'p', cidr: '10.9.0.0/24', labels: { tier: 'gold' } })
      .expect(201);
    await api
      .http()
      .put('/v1/nodes/n')
      .send({ labels: { tier: 'gold' } })
      .expect(200);
  });
  afterAll(() => api.close());

  /** The request is refused with 400 in the API's error shape, and no event is appended. */
  async function refused(send: () => Promise<{ status: number; body: { code?: string; message?: string } }>, code = 'INVALID_ARGUMENT') {
    const before = await api.eventCount();
    const res = await send();
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code });
    expect(typeof res.body.message).toBe('string');
    expect(await api.eventCount()).toBe(before);
    return res;
  }

  const selector = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');

  describe('forged page cursors (issue 20)', () => {
    const token = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');

    it('refuses continue tokens whose numbers overflow their column, on every list route', async () => {
      // ["a",99999999]: the allocation family is a smallint, and this token once got a 500
      await refused(() => api.http().get('/v1/allocations').query({ pool: 'x', continue: 'WyJhIiw5OTk5OTk5OV0' }));
      for (const key of [['a', 32768], ['a', -32769], ['a', 2 ** 31], ['a', 4.5], ['a'], [1]])
        await refused(() =>
          api
            .http()
            .get('/v1/allocations')
            .query({ continue: token(key) }),
        );
      await refused(() =>
        api
          .http()
          .get('/v1/allocations')
          .query({ at: new Date().toISOString(), continue: token(['a', 99999999]) }),
      );
      for (const key of [[99999999], ['a', 1], [null]])
        await refused(() =>
          api
            .http()
            .get('/v1/pools')
            .query({ continue: token(key) }),
        );
    });

    it('refuses cursors of the log and of a stream beyond their columns', async () => {
      for (const after of ['9223372036854775808:1', '1:9223372036854775808'])
        await refused(() =>
          api
            .http()
            .get('/v1/events')
            .query({ after: Buffer.from(after).toString('base64url') }),
        );
      for (const after of ['2147483648', '9007199254740991']) await refused(() => api.http().get('/v1/pools/p/history').query({ after }));
    });
  });

  describe('selectors (defect 2)', () => {
    it('refuses a selector with more requirements than the limit, on every route that takes one', async () => {
      await refused(
        () =>
          api
            .http()
            .get('/v1/pools')
            .query({ labelSelector: selector(65) }),
        'INVALID_SELECTOR',
      );
      await refused(
        () =>
          api
            .http()
            .get('/v1/nodes/n/pools')
            .query({ poolSelector: selector(321) }),
        'INVALID_SELECTOR',
      );
      await refused(
        () =>
          api
            .http()
            .post('/v1/allocations')
            .send({ handle: 'h', node: 'n', namespace: 'ns', pod: 'x', poolSelector: selector(321) }),
        'INVALID_SELECTOR',
      );
      await refused(
        () =>
          api
            .http()
            .put('/v1/statefulsets/ns/s')
            .send({ replicas: 1, poolSelector: selector(100) }),
        'INVALID_SELECTOR',
      );
      await refused(
        () =>
          api
            .http()
            .post('/v1/pools')
            .send({ name: 'q', cidr: '10.8.0.0/24', nodeSelector: selector(65) }),
        'INVALID_SELECTOR',
      );
    });

    it('evaluates any number of requirements with one fixed SQL text and one plan, whose size and cost do not grow with them', async () => {
      const sql = (n: number) =>
        poolPageSql(
          { labelSelector: LabelSelector.parse(['tier=gold', ...Array.from({ length: n }, (_, i) => `k${i}!=v`)].join(',')) },
          null,
          10,
        );
      interface PlanNode {
        'Total Cost': number;
        Plans?: PlanNode[];
      }
      const plan = async (n: number) => {
        const { text, values } = sql(n);
        const { rows } = await api.db.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
        return rows[0]['QUERY PLAN'][0].Plan;
      };
      const nodes = (node: PlanNode): number => 1 + (node.Plans ?? []).reduce((sum, child) => sum + nodes(child), 0);
      const few = await plan(2);
      const many = await plan(MAX_SELECTOR_REQUIREMENTS - 1);
      expect(nodes(many)).toBe(nodes(few));
      expect(many['Total Cost']).toBe(few['Total Cost']);
      expect(sql(MAX_SELECTOR_REQUIREMENTS - 1).text).toBe(sql(2).text);
      expect(sql(2).values).toHaveLength(sql(MAX_SELECTOR_REQUIREMENTS - 1).values.length);
    });

    it('refuses a 30,001-requirement selector with 400, not "stack depth limit exceeded"', async () => {
      const body = { handle: 'h', node: 'n', namespace: 'ns', pod: 'x', poolSelector: selector(30_001) };
      const res = await refused(() => api.http().post('/v1/allocations').send(body));
      expect(res.body.message).toContain('poolSelector must be shorter than or equal to 4096 characters');
    });

    it('refuses a selector longer than the limit, where it arrives (the DTO) and where it is parsed (the domain)', async () => {
      await refused(() =>
        api
          .http()
          .get('/v1/pools')
          .query({ labelSelector: `tier in (${'a,'.repeat(2100)}b)` }),
      );
      expect(() => LabelSelector.parse(`tier in (${'a,'.repeat(2100)}b)`)).toThrow(/longer than 4096 characters/);
    });

    it('answers a selector at the limit, with the same result as its first requirement alone', async () => {
      const many = ['tier=gold', ...Array.from({ length: 63 }, (_, i) => `!absent${i}`)].join(',');
      const res = await api.http().get('/v1/pools').query({ labelSelector: many }).expect(200);
      expect(res.body.items.map((p: { name: string }) => p.name)).toEqual(['p']);
      const none = await api
        .http()
        .get('/v1/pools')
        .query({ labelSelector: `${many},tier notin (gold)` });
      expect(none.status).toBe(400);
      const mixed = ['tier in (gold,silver)', ...Array.from({ length: 30 }, (_, i) => `k${i}!=v`), 'tier', '!zone'].join(',');
      expect((await api.http().get('/v1/nodes/n/pools').query({ poolSelector: mixed }).expect(200)).body.items).toHaveLength(1);
    });
  });

  describe('limits on input', () => {
    const long = (n: number) => 'a'.repeat(n);
    it.each([
      ['/v1/pools', { node: long(254) }],
      ['/v1/pools', { continue: long(2049) }],
      ['/v1/allocations', { pool: long(64) }],
      ['/v1/allocations', { node: long(254) }],
      ['/v1/allocations', { namespace: long(64) }],
      ['/v1/allocations', { pod: long(254) }],
      ['/v1/events', { streamId: long(513) }],
      ['/v1/events', { type: long(129) }],
      ['/v1/events', { after: long(2049) }],
      ['/v1/events', { limit: 1001 }],
      ['/v1/events', { limit: 0 }],
      ['/v1/pools/p/history', { after: '1e30' }],
      ['/v1/pools/p/history', { after: '-1' }],
      ['/v1/nodes/n/pools', { matchLabel: long(318) }],
      ['/v1/nodes/n/pools', { poolSelector: long(4097) }],
    ])('GET %s refuses %j', async (path, query) => {
      await refused(() => api.http().get(path).query(query));
    });

    it('refuses an ordinalsStart beyond int32 (Kubernetes spec.ordinals.start), found by the fuzz suite as a 500', async () => {
      const res = await refused(() =>
        api.http().put('/v1/statefulsets/q/web').send({ replicas: 0, ordinalsStart: Number.MAX_SAFE_INTEGER, poolSelector: 'tier' }),
      );
      expect(res.body.message).toContain('ordinalsStart');
      await api.http().put('/v1/statefulsets/q/web').send({ replicas: 1, ordinalsStart: 2_147_483_647, pool: 'p' }).expect(200);
      await api.http().delete('/v1/statefulsets/q/web').expect(204);
    });

    it('refuses a path parameter longer than the limit', async () => {
      await refused(() => api.http().get(`/v1/allocations/${long(1025)}`));
      await refused(() => api.http().delete(`/v1/nodes/${long(3000)}`));
    });

    it('refuses bodies beyond the limits', async () => {
      const alloc = { handle: 'h', node: 'n', namespace: 'ns', pod: 'x' };
      await refused(() =>
        api
          .http()
          .post('/v1/allocations')
          .send({ ...alloc, handle: long(256) }),
      );
      await refused(() =>
        api
          .http()
          .post('/v1/allocations')
          .send({ ...alloc, podUid: long(129) }),
      );
      await refused(() =>
        api
          .http()
          .post('/v1/allocations')
          .send({ ...alloc, pools: Array.from({ length: 101 }, (_, i) => `p${i}`) }),
      );
      const labels = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v']));
      await refused(() => api.http().put('/v1/nodes/m').send({ labels }), 'INVALID_LABEL');
      await refused(() =>
        api
          .http()
          .post('/v1/pools')
          .send({ name: 'r', cidr: '10.1.0.0/16', reserved: Array.from({ length: 1025 }, (_, i) => `10.1.${i >> 8}.${i & 255}`) }),
      );
    });

    it('publishes the limits in the OpenAPI document', async () => {
      const doc = (await api.http().get('/docs-json')).body;
      const schema = (name: string) => doc.components.schemas[name].properties;
      expect(schema('CreateAllocationDto').handle.maxLength).toBe(255);
      expect(schema('CreateAllocationDto').poolSelector.maxLength).toBe(4096);
      expect(schema('CreateAllocationDto').pools.maxItems).toBe(100);
      expect(schema('CreatePoolDto').labels.maxProperties).toBe(256);
      const params = doc.paths['/v1/pools'].get.parameters;
      expect(params.find((p: { name: string }) => p.name === 'labelSelector').schema.maxLength).toBe(4096);
      expect(params.find((p: { name: string }) => p.name === 'limit').schema).toMatchObject({ type: 'integer', maximum: 1000 });
      const byHandle = doc.paths['/v1/allocations/{handle}'].delete.parameters;
      // a parameter is of its kind, with the kind's one limit (a handle: 255, a pod's uid: 128)
      expect(byHandle).toEqual([
        expect.objectContaining({ name: 'handle', in: 'path', 'x-kind': 'handle', schema: { type: 'string', maxLength: 255 } }),
        expect.objectContaining({ name: 'podUid', in: 'query', 'x-kind': 'uid', schema: { type: 'string', maxLength: 128 } }),
      ]);
    });
  });

  describe('NUL characters (defect 3)', () => {
    it.each([
      ['/v1/pools/a%00b'],
      ['/v1/pools/a%00b/history'],
      ['/v1/nodes/a%00b'],
      ['/v1/nodes/a%00b/pools'],
      ['/v1/allocations/a%00b'],
      ['/v1/statefulsets/a%00b/c'],
      ['/v1/ips/10.0.0.1%00/history'],
      ['/v1/pools?node=a%00b'],
      ['/v1/pools?labelSelector=a%00b'],
      ['/v1/allocations?pool=a%00b'],
      ['/v1/allocations?node=a%00b'],
      ['/v1/allocations?namespace=a%00b'],
      ['/v1/allocations?pod=a%00b'],
      ['/v1/events?streamId=a%00b'],
      ['/v1/events?type=a%00b'],
      ['/v1/nodes/n/pools?matchLabel=a%00b'],
    ])('GET %s answers 400', async (url) => {
      await refused(() => api.http().get(url));
    });

    it('refuses NUL in body fields and in label keys', async () => {
      await refused(() => api.http().post('/v1/allocations').send({ handle: 'a\u0000b', node: 'n', namespace: 'ns', pod: 'x' }));
      await refused(() =>
        api
          .http()
          .put('/v1/nodes/m')
          .send({ labels: { 'a\u0000': 'b' } }),
      );
      await refused(() => api.http().delete('/v1/allocations/a%00b'));
      await refused(() => api.http().delete('/v1/nodes/a%00b'));
    });
  });

  describe('unpaired surrogates', () => {
    // JSON may escape half of a surrogate pair, which is no character: PostgreSQL refuses it in JSON
    const post = (path: string, text: string) => api.http().post(path).set('content-type', 'application/json').send(text);
    it.each([
      ['a lone low half', '{"handle":"a\\udc00b","node":"n","namespace":"ns","pod":"x"}'],
      ['a lone high half', '{"handle":"a\\uD800","node":"n","namespace":"ns","pod":"x"}'],
      ['two high halves', '{"handle":"\\ud800\\ud800","node":"n","namespace":"ns","pod":"x"}'],
    ])('refuses %s in a body with 400', async (_, text) => {
      const res = await refused(() => post('/v1/allocations', text));
      expect(res.body.message).toMatch(/unpaired surrogate/);
    });

    it.each([['/v1/pools/%ED%B0%80'], ['/v1/allocations/a%ED%A0%80'], ['/v1/nodes/%F0%9F']])('GET %s answers 400', async (url) => {
      await refused(() => api.http().get(url));
    });

    it('accepts a whole pair: the handle keeps its character', async () => {
      const res = await post('/v1/allocations', '{"handle":"a\\ud83d\\ude00","node":"n","namespace":"ns","pod":"x","pools":["p"]}');
      expect(res.status).toBe(201);
      expect(res.body.items[0].handle).toBe('a\u{1f600}');
      await api
        .http()
        .delete(`/v1/allocations/${encodeURIComponent('a\u{1f600}')}`)
        .expect(204);
    });
  });

  describe('deep JSON (defect 3)', () => {
    it('refuses a body nested 5,000 deep before validation', async () => {
      const deep = `{"handle":"h","node":"n","namespace":"ns","pod":"x","pools":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      await refused(() => api.http().post('/v1/allocations').set('content-type', 'application/json').send(deep));
      const deepLabels = `{"labels":${'{"a":'.repeat(5000)}"b"${'}'.repeat(5000)}}`;
      await refused(() => api.http().put('/v1/nodes/m').set('content-type', 'application/json').send(deepLabels));
    });

    it('accepts the deepest document the contract needs', async () => {
      await api
        .http()
        .put('/v1/nodes/m')
        .send({ labels: { a: 'b' } })
        .expect(200);
    });
  });

  describe('continue tokens (defect 3)', () => {
    const token = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    it.each([
      ['/v1/allocations', ['a', 'x']],
      ['/v1/allocations', [null, null]],
      ['/v1/allocations', ['a\u0000', 4]],
      ['/v1/allocations', [{}, 4]],
      ['/v1/allocations?pool=p&at=2030-01-01T00:00:00Z', ['a', 'x']],
      ['/v1/allocations?pool=p&at=2030-01-01T00:00:00Z', [null, null]],
      ['/v1/pools', [null]],
      ['/v1/pools', [7]],
      ['/v1/pools', ['a\u0000']],
      ['/v1/pools', ['x'.repeat(10_000)]],
      // a block cursor names a pool and a CIDR: one that is no CIDR is refused before the database casts it
      ['/v1/nodes/m/blocks', ['', 'G']],
      ['/v1/pools/p/blocks', ['p', '10.0.0.0/33']],
      ['/v1/nodes/m/blocks?at=2030-01-01T00:00:00Z', ['', 'G']],
    ])('%s refuses forged token #%#', async (path, key) => {
      const sep = path.includes('?') ? '&' : '?';
      await refused(() => api.http().get(`${path}${sep}continue=${token(key)}`));
    });

    it('refuses a forged events cursor', async () => {
      for (const after of ['x', '1:2:3', '\u0000', '99999999999999999999999:1', '-1:5']) {
        await refused(() => api.http().get('/v1/events').query({ after }));
      }
    });
  });

  describe('times (defect 3)', () => {
    it.each(['2016-12-31T23:59:60Z', '2021-02-29T00:00:00Z', '2021-04-31T00:00:00Z', '2021-13-01T00:00:00Z', '2021-01-01T24:00:00Z'])(
      'refuses ?at=%s',
      async (at) => {
        await refused(() => api.http().get('/v1/pools/p').query({ at }));
        await refused(() => api.http().get('/v1/allocations').query({ pool: 'p', at }));
      },
    );

    it('accepts a valid instant with an offset and fractions', async () => {
      await api.http().get('/v1/pools/p').query({ at: '2030-02-28T23:59:59.999+01:00' }).expect(200);
      // valid, but before the pool existed
      expect((await api.http().get('/v1/pools/p').query({ at: '2024-02-29T00:00:00Z' })).body.code).toBe('POOL_NOT_FOUND');
    });
  });

  describe('label keys named like Object.prototype members (defect 4)', () => {
    const keys = ['constructor', 'prototype', 'valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf'];
    const labels = `{${keys.map((k) => `"${k}":"v-${k.toLowerCase().replace(/_/g, '')}"`).join(',')}}`;
    const expected = Object.fromEntries(keys.map((k) => [k, `v-${k.toLowerCase().replace(/_/g, '')}`]));
    const sortedEntries = (o: Record<string, string>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1));

    it('keeps them on a pool (create, read, list, patch, history, ?at=)', async () => {
      const created = await api
        .http()
        .post('/v1/pools')
        .set('content-type', 'application/json')
        .send(`{"name":"proto","cidr":"10.7.0.0/24","labels":${labels}}`);
      expect(created.status).toBe(201);
      expect(sortedEntries(created.body.labels)).toEqual(sortedEntries(expected));
      expect(sortedEntries((await api.http().get('/v1/pools/proto')).body.labels)).toEqual(sortedEntries(expected));
      const listed = await api.http().get('/v1/pools').query({ labelSelector: 'constructor=v-constructor,prototype' });
      expect(listed.body.items.map((p: { name: string }) => p.name)).toEqual(['proto']);
      const at = await api
        .http()
        .get('/v1/pools/proto')
        .query({ at: new Date(Date.now() + 60_000).toISOString() });
      expect(sortedEntries(at.body.labels)).toEqual(sortedEntries(expected));
      const patched = await api
        .http()
        .patch('/v1/pools/proto')
        .set('content-type', 'application/json')
        .send(`{"labels":{"prototype":"x","toString":"y"}}`);
      expect(patched.body.labels).toEqual({ prototype: 'x', toString: 'y' });
      const history = await api.http().get('/v1/pools/proto/history');
      expect(sortedEntries(history.body.items[0].data.labels)).toEqual(sortedEntries(expected));
    });

    it('refuses "__proto__", which is not a valid label key (it must start with an alphanumeric character), rather than dropping it', async () => {
      const res = await refused(
        () => api.http().put('/v1/nodes/proto-node').set('content-type', 'application/json').send('{"labels":{"__proto__":"x"}}'),
        'INVALID_LABEL',
      );
      expect(res.body.message).toContain('__proto__');
      await refused(
        () =>
          api
            .http()
            .post('/v1/pools')
            .set('content-type', 'application/json')
            .send('{"name":"pp","cidr":"10.5.0.0/24","labels":{"__proto__":"x"}}'),
        'INVALID_LABEL',
      );
    });

    it('keeps them on a node, and matches them in pool nodeSelectors and matchLabel', async () => {
      const put = await api.http().put('/v1/nodes/proto-node').set('content-type', 'application/json').send(`{"labels":${labels}}`);
      expect(put.status).toBe(200);
      expect(sortedEntries(put.body.labels)).toEqual(sortedEntries(expected));
      expect(sortedEntries((await api.http().get('/v1/nodes/proto-node')).body.labels)).toEqual(sortedEntries(expected));
      await api
        .http()
        .post('/v1/pools')
        .send({ name: 'proto-sel', cidr: '10.6.0.0/24', nodeSelector: 'valueOf=v-valueof', labels: { constructor: 'v-constructor' } })
        .expect(201);
      const pools = await api.http().get('/v1/nodes/proto-node/pools').query({ matchLabel: 'constructor' });
      expect(pools.body.items.map((p: { name: string }) => p.name)).toEqual(['proto-sel']);
      // a node without the label has none, whatever Object.prototype holds
      expect((await api.http().get('/v1/nodes/n/pools').query({ matchLabel: 'constructor' })).body.code).toBe('NO_ELIGIBLE_POOL');
      const viaNode = await api.http().get('/v1/pools').query({ node: 'proto-node', labelSelector: 'constructor' });
      expect(viaNode.body.items.map((p: { name: string }) => p.name)).toEqual(['proto-sel']);
    });
  });

  describe('IPv6 text (defect 5)', () => {
    it.each([
      ['::8000:0/98', '::8000:0/98', '::8000:0'],
      ['::ffff:10.0.0.0/120', '::ffff:a00:0/120', '::ffff:a00:0'],
      ['::ffff:0:0/112', '::ffff:0:0/112', '::ffff:0:0'],
    ])('a pool created as %s reads %s everywhere', async (given, canonical, firstIp) => {
      const name = `v6-${canonical.replace(/[^0-9a-f]/g, '')}`;
      // IPv4-mapped pools are a special range: made here for their text alone
      const created = await api.http().post('/v1/pools').send({ name, cidr: given, allowSpecialRanges: true }).expect(201);
      expect(created.body.cidr).toBe(canonical);
      expect((await api.http().get(`/v1/pools/${name}`)).body.cidr).toBe(canonical);
      expect(
        (await api.http().get('/v1/pools').query({ labelSelector: '' })).body.items.find((p: { name: string }) => p.name === name).cidr,
      ).toBe(canonical);
      const at = new Date(Date.now() + 60_000).toISOString();
      expect((await api.http().get(`/v1/pools/${name}`).query({ at })).body.cidr).toBe(canonical);
      const history = await api.http().get(`/v1/pools/${name}/history`);
      expect(history.body.items[0].data.cidr).toBe(canonical);

      const alloc = await api
        .http()
        .post('/v1/allocations')
        .send({ handle: `h-${name}`, node: 'n', namespace: 'ns', pod: 'x', pools: [name], families: [6] });
      expect(alloc.status).toBe(201);
      expect(alloc.body.items[0]).toMatchObject({ ip: firstIp, cidr: canonical });
      expect((await api.http().get(`/v1/allocations/h-${name}`)).body.items[0]).toMatchObject({ ip: firstIp, cidr: canonical });
      expect((await api.http().get('/v1/allocations').query({ pool: name })).body.items[0]).toMatchObject({ ip: firstIp, cidr: canonical });
      expect((await api.http().get('/v1/allocations').query({ pool: name, at })).body.items[0]).toMatchObject({
        ip: firstIp,
        cidr: canonical,
      });
      const ipHistory = await api.http().get(`/v1/ips/${firstIp}/history`);
      expect(ipHistory.body.items).toHaveLength(1);
      const events = await api
        .http()
        .get('/v1/events')
        .query({ streamId: `pool-${name}`, type: 'IpAllocated' });
      if (events.body.items.length) expect(events.body.items[0].data).toMatchObject({ ip: firstIp });
      await api.http().put(`/v1/statefulsets/ns/${name}`).send({ replicas: 2, pool: name }).expect(200);
      const reservation = (await api.http().get(`/v1/statefulsets/ns/${name}`)).body;
      expect(reservation.range.start).not.toContain('.');
      await api.http().delete(`/v1/allocations/h-${name}`).expect(204);
      await api.http().delete(`/v1/statefulsets/ns/${name}`).expect(204);
    });
  });
});
