import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { openApiRequests, type FuzzRequest, type OpenApiDocument } from '../../../test/support/openapi-requests';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/**
 * Requests generated from the OpenAPI document against every route, in process (Fastify inject).
 * API.md: a 5xx is a bug (no dependency is down here); a refused request appends nothing; the
 * server stays healthy throughout.
 */
describe(`fuzz: ${RUNS} requests generated from the OpenAPI document (seed ${SEED}; FUZZ_SEED=${SEED} repeats them)`, () => {
  let api: TestApi;
  let fastify: FastifyInstance;

  beforeAll(async () => {
    api = await startTestApi('fuzz');
    fastify = api.app.getHttpAdapter().getInstance();
    const seed = [
      ['POST', '/v1/pools', { name: 'p', cidr: '10.3.0.0/16', labels: { tier: 'gold', constructor: 'x' } }],
      ['POST', '/v1/pools', { name: 'p6', cidr: 'fd00::/64', labels: { tier: 'gold' } }],
      ['POST', '/v1/pools', { name: 'q', cidr: '::8000:0/98', nodeSelector: 'tier=gold' }],
      ['PUT', '/v1/nodes/n', { labels: { tier: 'gold' } }],
      ['POST', '/v1/allocations', { handle: 'h', node: 'n', namespace: 'ns', pod: 'web-0', matchLabel: 'tier' }],
      ['PUT', '/v1/statefulsets/ns/web', { replicas: 3, pool: 'p' }],
      // the same names in a member cluster, for the routes under /v1/clusters/{cluster}
      ['PUT', '/v1/clusters/east', { labels: { tier: 'gold' } }],
      ['PUT', '/v1/clusters/east/nodes/n', { labels: { tier: 'gold' } }],
      ['POST', '/v1/clusters/east/allocations', { handle: 'h', node: 'n', namespace: 'ns', pod: 'web-0', matchLabel: 'tier' }],
      ['PUT', '/v1/clusters/east/statefulsets/ns/web', { replicas: 3, pool: 'p' }],
    ] as const;
    for (const [method, url, payload] of seed) {
      const res = await fastify.inject({ method, url, payload });
      expect(res.statusCode).toBeLessThan(300);
    }
  });
  afterAll(() => api.close());

  const lastPosition = async () =>
    (await api.db.pool.query('SELECT coalesce(max(position), 0)::text AS p FROM events')).rows[0].p as string;

  it('answers no 5xx, appends nothing when it refuses, and stays healthy', async () => {
    const doc = (await fastify.inject({ method: 'GET', url: '/docs-json' })).json<OpenApiDocument>();
    const octet = fc.integer({ min: 0, max: 255 });
    const { routes, requests } = openApiRequests(doc, {
      words: [
        'p',
        'p6',
        'q',
        'n',
        'h',
        'ns',
        'web',
        'web-0',
        'tier',
        'gold',
        'tier=gold',
        '10.3.0.7',
        'fd00::7',
        '::8000:1',
        'pool-p',
        'east',
      ],
      fields: {
        name: fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/),
        cidr: fc.oneof(
          fc.tuple(octet, octet, fc.integer({ min: 24, max: 30 })).map(([a, b, len]) => `10.${a}.${b}.0/${len}`),
          fc
            .tuple(fc.integer({ min: 1, max: 0xffff }), fc.integer({ min: 64, max: 120 }))
            .map(([g, len]) => `fd01:${g.toString(16)}::/${len}`),
          fc.constantFrom('::ffff:192.168.0.0/120', '::8001:0/112', '10.3.0.0/16'),
        ),
        ip: fc.oneof(
          octet.map((d) => `10.3.0.${d}`),
          fc.integer({ min: 0, max: 0xffff }).map((g) => `fd00::${g.toString(16)}`),
        ),
        reserved: fc.array(
          octet.map((d) => `10.3.1.${d}`),
          { maxLength: 3 },
        ),
        families: fc.constantFrom([4], [6], [4, 6]),
        labels: fc.dictionary(
          fc.constantFrom('tier', 'zone', 'constructor', 'toString', 'example.com/rack'),
          fc.constantFrom('gold', 'a', ''),
        ),
        nodeSelector: fc.constantFrom('tier=gold', 'tier in (gold,silver)', '!zone', '', null),
        poolSelector: fc.constantFrom('tier=gold', 'tier', 'tier notin (silver),!zone', 'constructor'),
        matchLabel: fc.constantFrom('tier', 'constructor'),
        pools: fc.constantFrom(['p'], ['p6'], ['q', 'p'], ['missing']),
        handle: fc.stringMatching(/^[a-f0-9]{4}:eth[0-3]$/),
        node: fc.constantFrom('n'),
        namespace: fc.constantFrom('ns', 'default'),
        pod: fc.integer({ min: 0, max: 9 }).map((i) => `web-${i}`),
        replicas: fc.integer({ min: 0, max: 5 }),
      },
    });
    const samples = fc.sample(requests, { numRuns: RUNS, seed: SEED });

    const serverErrors: Array<{ request: FuzzRequest; status: number; body: string }> = [];
    const appendedWhenRefused: Array<{ request: FuzzRequest; status: number }> = [];
    const byRoute = new Map<string, Map<number, number>>(routes.map((r) => [r, new Map()]));
    let position = await lastPosition();
    for (const [i, request] of samples.entries()) {
      const res = await fastify.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: request.headers,
        payload: request.payload,
      });
      const statuses = byRoute.get(request.route)!;
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode >= 500) serverErrors.push({ request, status: res.statusCode, body: res.body.slice(0, 300) });
      if (request.method !== 'GET') {
        const now = await lastPosition();
        if (res.statusCode >= 400 && now !== position) appendedWhenRefused.push({ request, status: res.statusCode });
        position = now;
      }
      if (i % 1000 === 999) {
        expect((await fastify.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
        expect((await fastify.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      }
    }

    const summary = [...byRoute].map(
      ([route, statuses]) =>
        `${route}: ${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    );
    console.log(`fuzz: ${samples.length} requests, seed ${SEED}, ${serverErrors.length} answered 5xx\n${summary.join('\n')}`);
    expect(serverErrors.slice(0, 5)).toEqual([]);
    expect(appendedWhenRefused.slice(0, 5)).toEqual([]);
    // every route was exercised, and plausible requests got past validation on nearly all of them:
    // answered anything but a refusal of the request's shape (a 404 or 409 is an answer about the
    // ledger's state; a 2xx depends on seeded objects an early request may have deleted)
    expect(routes.filter((route) => byRoute.get(route)!.size === 0)).toEqual([]);
    const pastValidation = routes.filter((route) => [...byRoute.get(route)!.keys()].some((status) => ![400, 413, 415].includes(status)));
    expect(pastValidation.length).toBeGreaterThanOrEqual(Math.floor(routes.length * 0.9));
    expect((await fastify.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // and it still works: a new pool (the fuzz may have disabled or deleted the seeded ones) hands out an address
    const pool = await fastify.inject({ method: 'POST', url: '/v1/pools', payload: { name: 'after-fuzz', cidr: '192.0.2.0/24' } });
    expect(pool.statusCode).toBe(201);
    const alloc = await fastify.inject({
      method: 'POST',
      url: '/v1/allocations',
      payload: { handle: 'after-fuzz', node: 'after-fuzz', namespace: 'ns', pod: 'z', pools: ['after-fuzz'] },
    });
    expect(alloc.statusCode).toBe(201);
  }, 300_000);
});
