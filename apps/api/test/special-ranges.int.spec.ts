import { randomUUID } from 'node:crypto';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * Pools in special ranges (loopback, multicast, ...) only when asked for, and an IPv4 address and
 * its IPv4-mapped IPv6 form never both held: over REST and through IPPool objects.
 */
describe('special ranges and IPv4-mapped addresses', () => {
  let api: TestApi;
  let bus: TestBus;
  beforeAll(async () => {
    bus = await createTestBus('special_ranges');
    api = await startTestApi('special_ranges', { env: bus.env });
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  /** The request's answer, and that a refusal appended nothing. */
  async function refused(send: () => Promise<{ status: number; body: { code?: string; message?: string } }>) {
    const before = await api.eventCount();
    const res = await send();
    expect(await api.eventCount()).toBe(before);
    return res;
  }

  it.each([
    ['the whole IPv4 space', '0.0.0.0/0'],
    ['the whole IPv6 space', '::/0'],
    ['unspecified IPv4', '0.0.0.0/8'],
    ['unspecified IPv6', '::/128'],
    ['loopback IPv4', '127.0.0.0/8'],
    ['loopback IPv6', '::1/128'],
    ['multicast IPv4', '224.0.0.0/4'],
    ['multicast IPv6', 'ff00::/8'],
    ['link-local IPv4', '169.254.0.0/16'],
    ['link-local IPv6', 'fe80::/64'],
    ['IPv4-mapped IPv6', '::ffff:10.10.0.0/120'],
  ])('refuses a pool of %s (%s) with 400 SPECIAL_RANGE and appends nothing; takes it with allowSpecialRanges', async (_, cidr) => {
    const res = await refused(() => api.http().post('/v1/pools').send({ name: 'special', cidr }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'SPECIAL_RANGE' });
    expect(res.body.message).toMatch(/allowSpecialRanges: true/);
    const made = await api.http().post('/v1/pools').send({ name: 'special', cidr, allowSpecialRanges: true });
    expect(made.status).toBe(201);
    expect(made.body.allowSpecialRanges).toBe(true);
    await api.http().delete('/v1/pools/special').expect(204);
  });

  it('refuses a grow into a special range unless the pool or the patch allows it', async () => {
    await api.http().post('/v1/pools').send({ name: 'below-loopback', cidr: '126.0.0.0/8' }).expect(201);
    const res = await refused(() => api.http().patch('/v1/pools/below-loopback').send({ cidr: '126.0.0.0/7' }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('SPECIAL_RANGE');
    expect(res.body.message).toMatch(/loopback range 127\.0\.0\.0\/8/);
    const grown = await api.http().patch('/v1/pools/below-loopback').send({ cidr: '126.0.0.0/7', allowSpecialRanges: true });
    expect(grown.body).toMatchObject({ cidr: '126.0.0.0/7', allowSpecialRanges: true });
    // the pool keeps the override while it lies there
    const off = await refused(() => api.http().patch('/v1/pools/below-loopback').send({ allowSpecialRanges: false }));
    expect(off.body.code).toBe('SPECIAL_RANGE');
    await api.http().delete('/v1/pools/below-loopback').expect(204);
  });

  it('never holds an IPv4 address and its IPv4-mapped form: a mapped pool over an IPv4 pool is POOL_OVERLAP, either way round', async () => {
    await api.http().post('/v1/pools').send({ name: 'v4', cidr: '10.10.0.0/24' }).expect(201);
    const held = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'v4-holder', node: 'n', namespace: 'default', pod: 'p', ip: '10.10.0.1' });
    expect(held.status).toBe(201);

    for (const cidr of ['::ffff:10.10.0.0/120', '::ffff:10.10.0.0/126', '::ffff:0:0/96', '::/0']) {
      const res = await refused(() => api.http().post('/v1/pools').send({ name: 'mapped', cidr, allowSpecialRanges: true }));
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('POOL_OVERLAP');
      expect(res.body.message).toMatch(/pool "v4" \(10\.10\.0\.0\/24\)/);
    }
    // the mapped form asked for by address: no pool holds it, so it is not handed out
    const twice = await refused(() =>
      api
        .http()
        .post('/v1/allocations')
        .send({ handle: 'mapped-holder', node: 'n', namespace: 'default', pod: 'q', ip: '::ffff:10.10.0.1' }),
    );
    expect(twice.body).toMatchObject({ statusCode: 409, code: 'NO_ELIGIBLE_POOL' });
    expect((await api.http().get('/v1/allocations?pool=v4')).body.items.map((a: { ip: string }) => a.ip)).toEqual(['10.10.0.1']);

    // a mapped pool beside it is allowed, and then no IPv4 pool may take its addresses, nor may it grow over v4
    await api.http().post('/v1/pools').send({ name: 'mapped', cidr: '::ffff:10.10.1.0/120', allowSpecialRanges: true }).expect(201);
    const v4Over = await refused(() => api.http().post('/v1/pools').send({ name: 'v4-over', cidr: '10.10.1.0/25' }));
    expect(v4Over.status).toBe(409);
    expect(v4Over.body.message).toMatch(/pool "mapped" \(::ffff:a0a:100\/120\)/);
    const grow = await refused(() => api.http().patch('/v1/pools/mapped').send({ cidr: '::ffff:10.10.0.0/119' }));
    expect(grow.status).toBe(409);
    expect(grow.body.code).toBe('POOL_OVERLAP');
    const mapped = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'mapped-1', node: 'n', namespace: 'default', pod: 'r', families: [6] });
    expect(mapped.body.items[0]).toMatchObject({ pool: 'mapped', ip: '::ffff:a0a:100' });
  });

  it('applies IPPool objects by the same rules: SPECIAL_RANGE in the status, spec.allowSpecialRanges to allow it', async () => {
    let rv = 1000;
    const ippool = (name: string, spec: Record<string, unknown>) => ({
      metadata: { name, uid: randomUUID(), resourceVersion: String(++rv) },
      spec,
    });
    const status = async (key: string) =>
      (await api.db.pool.query(`SELECT status FROM kubernetes_objects WHERE kind = 'ippool' AND key = $1`, [key])).rows[0]?.status as
        | string
        | undefined;
    const before = await api.eventCount();
    await bus.publisher.change({ kind: 'ippool', type: 'ADDED', object: ippool('loopback', { cidr: '127.0.0.0/8' }) });
    await bus.publisher.change({
      kind: 'ippool',
      type: 'ADDED',
      object: ippool('over-v4', { cidr: '::ffff:10.10.0.0/120', allowSpecialRanges: true }),
    });
    await bus.publisher.flush();
    await bus.idle();
    expect(await status('loopback')).toMatch(/^refused: SPECIAL_RANGE: pool "loopback": 127\.0\.0\.0\/8 is in or over the loopback range/);
    expect(await status('over-v4')).toMatch(/^refused: POOL_OVERLAP: /);
    expect(await api.eventCount()).toBe(before);

    await bus.publisher.change({
      kind: 'ippool',
      type: 'MODIFIED',
      object: ippool('loopback', { cidr: '127.0.0.0/8', allowSpecialRanges: true }),
    });
    await bus.publisher.flush();
    await bus.idle();
    expect(await status('loopback')).toBe('created');
    expect((await api.http().get('/v1/pools/loopback')).body).toMatchObject({ cidr: '127.0.0.0/8', allowSpecialRanges: true });
  });
});
