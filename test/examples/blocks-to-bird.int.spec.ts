import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApi, type TestApi } from '../support/test-api';

const SCRIPT = join(__dirname, '../../docs/examples/blocks-to-bird.sh');
const ADMIN = 'bird-admin-token';
const READER = 'bird-reader-token';

/** docs/examples/blocks-to-bird.sh run with sh, curl and jq against a real API: the routes it writes for a node. */
describe('blocks-to-bird.sh', () => {
  let api: TestApi;
  let url: string;
  let folder: string;
  const held: Record<string, string> = {};

  const admin = () => ({ authorization: `Bearer ${ADMIN}` });
  const allocate = async (pod: string, pool: string, node: string, namespace = 'shop') => {
    const res = await api
      .http()
      .post('/v1/allocations')
      .set(admin())
      .send({ handle: `${pod}:eth0`, node, namespace, pod, pools: [pool], families: [pool === 'rack6' ? 6 : 4] })
      .expect(201);
    held[pod] = res.body.items[0].ip;
  };
  const routesOf = async (node: string) => {
    const { stdout } = await promisify(execFile)('sh', [SCRIPT], {
      env: { PATH: process.env.PATH, IPLEDGER_URL: url, IPLEDGER_TOKEN_FILE: join(folder, 'token'), NODE_NAME: node },
    });
    return stdout.trim().split('\n').sort();
  };

  beforeAll(async () => {
    api = await startTestApi('blocks_to_bird', { env: { IPAM_TOKENS: `${ADMIN}:admin,${READER}:reader` } });
    url = `http://127.0.0.1:${api.app.getHttpServer().address().port}`;
    folder = mkdtempSync(join(tmpdir(), 'blocks-to-bird-'));
    writeFileSync(join(folder, 'token'), READER);
    for (const pool of [
      { name: 'rack', cidr: '10.50.0.0/24', blockSize: 26 },
      { name: 'rack6', cidr: 'fd00:50::/120', blockSize: 122 },
      { name: 'flat', cidr: '10.51.0.0/24' },
    ])
      await api.http().post('/v1/pools').set(admin()).send(pool).expect(201);
    // each StatefulSet range takes a block no node may claim
    await api.http().put('/v1/statefulsets/apps/db').set(admin()).send({ replicas: 2, pool: 'rack' }).expect(200);
    await api.http().put('/v1/statefulsets/apps/db6').set(admin()).send({ replicas: 1, pool: 'rack6' }).expect(200);
    await allocate('a-0', 'rack', 'n1');
    await allocate('a-1', 'rack', 'n1');
    await allocate('db-0', 'rack', 'n1', 'apps');
    await allocate('f-0', 'flat', 'n1');
    for (const node of ['n2', 'n3']) {
      await allocate(`${node}-4`, 'rack', node);
      await allocate(`${node}-6`, 'rack6', node);
    }
    // past its block's first address, so that only a correct prefix test finds it inside
    await allocate('n2-6b', 'rack6', 'n2');
    await allocate('n4-6', 'rack6', 'n4');
    // every block of both pools is taken: these two borrow
    await allocate('n4-4', 'rack', 'n4');
    await allocate('n1-6', 'rack6', 'n1');
  });

  afterAll(async () => {
    await api?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("writes a node's blocks, and a host route for each address it holds outside them in a pool with blocks", async () => {
    const blocks = (await api.http().get('/v1/nodes/n1/blocks').set(admin()).expect(200)).body.items;
    expect(blocks).toEqual([{ cidr: '10.50.0.64/26', pool: 'rack', node: 'n1', cluster: 'default', used: 2, borrowed: 0 }]);
    const borrowed = (await api.http().get('/v1/allocations/n1-6:eth0').set(admin()).expect(200)).body.items[0];
    expect(borrowed).toMatchObject({ pool: 'rack6', borrowed: true });
    expect(held['db-0']).toBe('10.50.0.1');
    // a-0 and a-1 are inside n1's block; f-0's pool has no blocks
    expect(await routesOf('n1')).toEqual(
      [
        'route 10.50.0.64/26 blackhole;  # pool rack, 2 used',
        'route 10.50.0.1/32 blackhole;  # pool rack, apps/db-0, StatefulSet range',
        `route ${held['n1-6']}/128 blackhole;  # pool rack6, shop/n1-6, borrowed`,
      ].sort(),
    );
    expect(await routesOf('n4')).toContain(`route ${held['n4-4']}/32 blackhole;  # pool rack, shop/n4-4, borrowed`);
  });

  it('writes no host route for addresses inside the node’s own IPv4 and IPv6 blocks', async () => {
    const blocks = (await api.http().get('/v1/nodes/n2/blocks').set(admin()).expect(200)).body.items as Array<{
      cidr: string;
      pool: string;
      used: number;
    }>;
    expect(blocks.map((b) => b.pool)).toEqual(['rack', 'rack6']);
    expect(await routesOf('n2')).toEqual(blocks.map((b) => `route ${b.cidr} blackhole;  # pool ${b.pool}, ${b.used} used`).sort());
  });
});
