/**
 * The IPAM a platform team would write instead of ipledger, written fairly (issue 27): node:http,
 * a `pg` pool of 32, one row per address, and one statement per allocation that takes a free
 * address (`FOR UPDATE SKIP LOCKED`) and writes its audit row in the same statement. It answers
 * `POST /v1/allocations` with the contract's fields and status codes: 201 for a new address, 200
 * with the same body when the handle already holds one (a retried CNI ADD), 409 POOL_EXHAUSTED.
 * Run by bench/baseline.bench.ts as its own process; prints `listening <port>` when ready.
 */
import http from 'node:http';
import { Pool, type DatabaseError } from 'pg';
import { BASELINE_ALLOCATE } from './baseline-schema';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 32 });

interface Request {
  handle: string;
  node: string;
  namespace: string;
  pod: string;
  pools: string[];
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The limits of ipledger's DTO (apps/api/src/http/limits.ts) and Kubernetes names, checked by hand as a small server would. */
function parse(body: unknown): Request | string {
  if (typeof body !== 'object' || body === null) return 'body must be an object';
  const b = body as Record<string, unknown>;
  const text = (key: string, max: number, pattern = /./) => typeof b[key] === 'string' && b[key].length <= max && pattern.test(b[key]);
  if (
    !text('handle', 255) ||
    !text('node', 253, DNS_SUBDOMAIN) ||
    !text('namespace', 63, DNS_SUBDOMAIN) ||
    !text('pod', 253, DNS_SUBDOMAIN)
  )
    return 'handle, node, namespace, pod: strings, Kubernetes names';
  const pools = b.pools;
  if (!Array.isArray(pools) || pools.length === 0 || pools.length > 100 || !pools.every((p) => typeof p === 'string' && p.length <= 253))
    return 'pools: 1-100 names';
  return b as unknown as Request;
}

interface Row {
  ip: string;
  pool: string;
  cidr: string;
  node: string;
  namespace: string;
  pod: string;
  allocated_at: Date;
  created: boolean;
}

/** One statement per pool tried; a concurrent request with the same handle loses on the unique index and reads the winner's row. */
async function allocate(req: Request): Promise<Row | undefined> {
  for (const name of req.pools) {
    const params = [req.handle, name, req.node, req.namespace, req.pod];
    const rows = await pool.query<Row>({ name: 'allocate', text: BASELINE_ALLOCATE, values: params }).catch(async (err: DatabaseError) => {
      if (err.code !== '23505') throw err;
      return pool.query<Row>({ name: 'allocate', text: BASELINE_ALLOCATE, values: params });
    });
    if (rows.rows.length > 0) return rows.rows[0];
  }
  return undefined;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function handle(raw: string, res: http.ServerResponse): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return send(res, 400, { code: 'BAD_REQUEST', message: 'malformed JSON' });
  }
  const req = parse(body);
  if (typeof req === 'string') return send(res, 400, { code: 'VALIDATION_FAILED', message: req });
  const row = await allocate(req);
  if (!row) return send(res, 409, { code: 'POOL_EXHAUSTED', message: 'no free address in any eligible pool' });
  const item = {
    handle: req.handle,
    ip: row.ip,
    prefixLength: Number(row.cidr.split('/')[1]),
    cidr: row.cidr,
    pool: row.pool,
    node: row.node,
    namespace: row.namespace,
    pod: row.pod,
    family: 4,
    allocatedAt: row.allocated_at.toISOString(),
  };
  send(res, row.created ? 201 : 200, { items: [item] });
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  if (req.method !== 'POST' || req.url !== '/v1/allocations') return send(res, 404, { code: 'NOT_FOUND', message: 'not found' });
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    handle(Buffer.concat(chunks).toString('utf8'), res).catch((err: Error) => send(res, 500, { code: 'INTERNAL', message: err.message }));
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end();
});
