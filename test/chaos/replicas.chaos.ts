import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../../apps/api/src/cli';
import { call, startApiProcess, type ApiProcess } from '../support/api-process';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { report, seconds } from './chaos-report';
import { heldTwice } from './held-twice';

/** An allocation a client saw acknowledged (201, or 200 for a retried handle). */
type Acknowledged = Map<string, string>;

/** What the clients met besides acknowledgements: answers they did not expect, and refused connections (a replica down). */
interface Tally {
  unexpected: string[];
  refused: number;
}

/** Acknowledged allocations a replica no longer answers with the same address. */
async function lost(base: string, acknowledged: Acknowledged): Promise<number> {
  let missing = 0;
  for (const [handle, ip] of acknowledged) {
    const held = await call(base, 'GET', `/v1/allocations/${encodeURIComponent(handle)}`);
    if (held.status !== 200 || held.body.items[0].ip !== ip) missing++;
  }
  return missing;
}

async function replayVerify(db: TestDatabase): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(['replay', '--verify'], (line) => lines.push(line), { DATABASE_URL: db.url, IPAM_KUBERNETES_CONSUMER: 'off' });
  return { code, lines };
}

const allocation = (handle: string, pool: string) => ({
  handle,
  node: 'n',
  namespace: 'chaos',
  pod: handle.replace(/[^a-z0-9-]/g, '-'),
  pools: [pool],
});

describe('chaos: API replicas', () => {
  let db: TestDatabase;
  const replicas: ApiProcess[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('chaos_replicas');
    replicas.push(...(await Promise.all([0, 1].map(() => startApiProcess(db.url, { from: 'dist' })))));
  }, 120_000);
  // a test's background loops (R2's killer and clients) end with it, even one that timed out:
  // none may kill or start a replica once the test is over, nor outlive the suite
  let running: { stop: AbortController; loops: Promise<unknown>[] } | undefined;
  afterEach(async () => {
    running?.stop.abort();
    await Promise.allSettled(running?.loops ?? []);
    running = undefined;
  });
  /**
   * Asks for one allocation until a replica acknowledges it (its address): a dead replica, the same
   * handle again through the other one (a handle takes one address, however often asked); a
   * CONCURRENCY_CONFLICT at once, anything else counted in `tally` and asked again after 50 ms.
   */
  const untilAcknowledged = async (body: Record<string, unknown>, turn: number, signal: AbortSignal, tally: Tally): Promise<string> => {
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      const res = await call(replicas[(turn + attempt) % 2].base, 'POST', '/v1/allocations', body).catch(() => null);
      if (res && (res.status === 201 || res.status === 200)) return res.body.items[0].ip as string;
      if (res?.status === 409 && res.body.code === 'CONCURRENCY_CONFLICT') continue;
      if (res) tally.unexpected.push(`${res.status} ${res.body?.code}`);
      else tally.refused++;
      await sleep(50, undefined, { signal });
      if (attempt > 400) throw new Error(`${String(body.handle)}: no replica answered`);
    }
  };
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await db.drop();
  });

  it('R1: two replicas and 64 clients exhaust a /22: exactly its capacity succeeds, no address held twice', async () => {
    expect((await call(replicas[0].base, 'POST', '/v1/pools', { name: 'r1', cidr: '10.100.0.0/22' })).status).toBe(201);
    const capacity = 1022;
    const acknowledged: Acknowledged = new Map();
    const unexpected: string[] = [];
    let requests = 0;
    let conflictsRetried = 0;
    const started = Date.now();
    const client = async (c: number) => {
      for (let n = 0; ; n++) {
        const handle = `r1-${c}-${n}`;
        for (;;) {
          requests++;
          const res = await call(replicas[(c + n) % 2].base, 'POST', '/v1/allocations', allocation(handle, 'r1'));
          if (res.status === 201) {
            acknowledged.set(handle, res.body.items[0].ip);
            break;
          }
          if (res.status === 409 && res.body.code === 'POOL_EXHAUSTED') return;
          if (res.status === 409 && res.body.code === 'CONCURRENCY_CONFLICT') {
            conflictsRetried++;
            continue;
          }
          unexpected.push(`${res.status} ${res.body?.code}`);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: 64 }, (_, c) => client(c)));
    const elapsed = Date.now() - started;
    const ips = new Set(acknowledged.values());
    const duplicates = acknowledged.size - ips.size + (await heldTwice(db.pool));
    const held = Number((await db.pool.query(`SELECT count(*) AS n FROM allocations WHERE pool = 'r1'`)).rows[0].n);
    report('R1 two replicas, 64 clients, /22', {
      capacity,
      succeeded: acknowledged.size,
      heldInReadModel: held,
      duplicates,
      requests,
      conflictsRetried,
      unexpected: unexpected.length,
      seconds: seconds(elapsed),
    });
    expect(unexpected).toEqual([]);
    expect(acknowledged.size).toBe(capacity);
    expect(held).toBe(capacity);
    expect(duplicates).toBe(0);
  });

  it('R2: kill -9 one replica ten times under load: every acknowledged allocation held, no duplicates, replay --verify clean', async () => {
    expect((await call(replicas[0].base, 'POST', '/v1/pools', { name: 'r2', cidr: '10.101.0.0/16' })).status).toBe(201);
    const acknowledged: Acknowledged = new Map();
    const tally: Tally = { unexpected: [], refused: 0 };
    let killing = true;
    const stop = new AbortController();
    const { signal } = stop;
    const perClient = 100;
    const client = async (c: number) => {
      for (let n = 0; n < perClient || (killing && n < 4 * perClient); n++) {
        const handle = `r2-${c}-${n}`;
        acknowledged.set(handle, await untilAcknowledged(allocation(handle, 'r2'), c + n, signal, tally));
      }
    };
    const restarts: number[] = [];
    const killer = async () => {
      for (let kill = 0; kill < 10; kill++) {
        await sleep(400 + Math.random() * 600, undefined, { signal });
        const victim = kill % 2;
        await replicas[victim].kill();
        const started = Date.now();
        replicas[victim] = await startApiProcess(db.url, { from: 'dist' });
        restarts.push(Date.now() - started);
      }
      killing = false;
    };
    const started = Date.now();
    running = { stop, loops: [killer(), ...Array.from({ length: 32 }, (_, c) => client(c))] };
    try {
      await Promise.all(running.loops);
    } finally {
      // a client that gave up fails the test: the killer and the other clients stop with it
      stop.abort();
    }
    const elapsed = Date.now() - started;
    const duplicates = acknowledged.size - new Set(acknowledged.values()).size + (await heldTwice(db.pool));
    const missing = await lost(replicas[0].base, acknowledged);
    const verify = await replayVerify(db);
    restarts.sort((a, b) => a - b);
    report('R2 kill -9 one of two replicas 10 times under load (32 clients)', {
      kills: restarts.length,
      acknowledged: acknowledged.size,
      lostAcknowledged: missing,
      duplicates,
      replayVerifyExit: verify.code,
      refusedConnections: tally.refused,
      unexpected: tally.unexpected.length,
      medianRestartToReadySeconds: seconds(restarts[Math.floor(restarts.length / 2)]),
      seconds: seconds(elapsed),
    });
    expect(restarts).toHaveLength(10);
    expect(tally.unexpected).toEqual([]);
    expect(missing).toBe(0);
    expect(duplicates).toBe(0);
    expect(verify.code).toBe(0);
    expect(verify.lines.at(-1)).toMatch(/every read model matches the log$/);
  });

  it("R8: kill -9 one replica while 48 nodes claim /26 blocks: no block claimed twice, every address in its node's block, none lost", async () => {
    // strict: an address outside its node's own block would be refused, never borrowed
    const pool = { name: 'r3', cidr: '10.102.0.0/20', blockSize: 26, blockAffinity: 'strict' };
    expect((await call(replicas[0].base, 'POST', '/v1/pools', pool)).status).toBe(201);
    const acknowledged: Acknowledged = new Map();
    const nodeOf = new Map<string, string>();
    const tally: Tally = { unexpected: [], refused: 0 };
    const stop = new AbortController();
    const { signal } = stop;
    // each node's first allocations race to claim its block, on both replicas, while one dies
    const node = async (k: number) => {
      for (let n = 0; n < 8; n++) {
        const handle = `r3-${k}-${n}`;
        nodeOf.set(handle, `node-${k}`);
        acknowledged.set(handle, await untilAcknowledged({ ...allocation(handle, 'r3'), node: `node-${k}` }, k + n, signal, tally));
      }
    };
    let kills = 0;
    const killer = async () => {
      for (; kills < 4; kills++) {
        await sleep(200 + Math.random() * 400, undefined, { signal });
        const victim = kills % 2;
        await replicas[victim].kill();
        replicas[victim] = await startApiProcess(db.url, { from: 'dist' });
      }
    };
    const started = Date.now();
    running = { stop, loops: [killer(), ...Array.from({ length: 48 }, (_, k) => node(k))] };
    try {
      await Promise.all(running.loops);
    } finally {
      stop.abort();
    }
    const elapsed = Date.now() - started;
    const claimedTwice = (
      await db.pool.query(
        `SELECT data ->> 'cidr' FROM events WHERE type = 'BlockClaimed' AND data ->> 'pool' = 'r3' GROUP BY 1 HAVING count(*) > 1`,
      )
    ).rows.length;
    const blocks = (await call(replicas[0].base, 'GET', '/v1/pools/r3/blocks?limit=1000')).body.items as Array<{
      cidr: string;
      node: string;
    }>;
    const blockNode = new Map(blocks.map((b) => [b.cidr, b.node]));
    // 10.102.0.0/20: an address's /26 is its third octet and the fourth rounded down to 64
    const blockOf = (ip: string) => {
      const [a, b, c, d] = ip.split('.').map(Number);
      return `${a}.${b}.${c}.${d - (d % 64)}/26`;
    };
    const outsideOwnBlock = [...acknowledged].filter(([handle, ip]) => blockNode.get(blockOf(ip)) !== nodeOf.get(handle)).length;
    const duplicates = acknowledged.size - new Set(acknowledged.values()).size + (await heldTwice(db.pool));
    const missing = await lost(replicas[0].base, acknowledged);
    const verify = await replayVerify(db);
    report('R8 kill -9 one of two replicas 4 times while 48 nodes claim /26 blocks', {
      kills,
      acknowledged: acknowledged.size,
      blocks: blocks.length,
      claimedTwice,
      outsideOwnBlock,
      lostAcknowledged: missing,
      duplicates,
      replayVerifyExit: verify.code,
      refusedConnections: tally.refused,
      unexpected: tally.unexpected.length,
      seconds: seconds(elapsed),
    });
    expect(kills).toBe(4);
    expect(tally.unexpected).toEqual([]);
    expect(acknowledged.size).toBe(48 * 8);
    expect(new Set(blocks.map((b) => b.node)).size).toBe(48);
    expect(claimedTwice).toBe(0);
    expect(outsideOwnBlock).toBe(0);
    expect(missing).toBe(0);
    expect(duplicates).toBe(0);
    expect(verify.code).toBe(0);
  });
});
