import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../support/api-process';
import { PREVIOUS_RELEASE } from './baseline';

const ROOT = join(__dirname, '../..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** The previous release's commit: IPAM_PREVIOUS_RELEASE (any git ref) when set, else the one baseline.ts names. */
export function previousRelease(): string {
  const ref = process.env.IPAM_PREVIOUS_RELEASE || PREVIOUS_RELEASE.commit;
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`the previous release ${ref} is not in this clone's history: fetch it (a shallow clone has none)`);
  }
}

/** The previous release's sources (git archive of `ref`) in a temporary folder, runnable with this tree's node_modules. */
export function checkOutPreviousRelease(ref: string): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'ipledger-previous-'));
  execFileSync('sh', ['-c', `git archive ${ref} | tar -x -C ${root}`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export type Step = [method: string, path: string, body?: unknown];

/**
 * A single cluster's life under the previous release: every kind of write its API takes (pools with
 * labels, a nodeSelector, a gateway and reserved ranges; a pool update; nodes; allocations from a
 * pool list, of a given address, dual stack, for an external owner; a StatefulSet reservation and
 * its pod; releases), leaving something of each behind.
 */
export const WORKLOAD: Step[] = [
  [
    'POST',
    '/v1/pools',
    { name: 'old', cidr: '10.77.0.0/24', gateway: '10.77.0.1', labels: { zone: 'a' }, reserved: ['10.77.0.250-10.77.0.255'] },
  ],
  ['POST', '/v1/pools', { name: 'old6', cidr: 'fd00:77::/120', labels: { zone: 'a' } }],
  ['POST', '/v1/pools', { name: 'gpu', cidr: '10.78.0.0/28', labels: { tier: 'gpu' }, nodeSelector: 'gpu=true' }],
  ['PATCH', '/v1/pools/old', { disabled: false }],
  ['PATCH', '/v1/pools/gpu', { labels: { tier: 'gpu', zone: 'b' } }],
  ['PUT', '/v1/nodes/worker-1', { labels: { zone: 'a' } }],
  ['PUT', '/v1/nodes/worker-2', { labels: { zone: 'b', gpu: 'true' } }],
  ['POST', '/v1/allocations', { handle: 'h1', node: 'worker-1', namespace: 'default', pod: 'web-0', podUid: 'u1', pools: ['old'] }],
  ['POST', '/v1/allocations', { handle: 'h2', node: 'worker-1', namespace: 'default', pod: 'web-1', ip: '10.77.0.9' }],
  ['POST', '/v1/allocations', { handle: 'dual', node: 'worker-1', namespace: 'default', pod: 'web-2', podUid: 'u2', families: [4, 6] }],
  ['POST', '/v1/allocations', { handle: 'v6', node: 'worker-1', namespace: 'default', pod: 'web-4', podUid: 'u6', ip: 'fd00:77::10' }],
  ['POST', '/v1/allocations', { handle: 'g1', node: 'worker-2', namespace: 'ml', pod: 'train-0', podUid: 'u3', poolSelector: 'tier=gpu' }],
  ['POST', '/v1/allocations', { handle: 'vm-1', node: 'worker-2', namespace: 'vms', pod: 'vm-1', owner: 'external', pools: ['old'] }],
  ['PUT', '/v1/statefulsets/default/db', { replicas: 3, pool: 'old' }],
  ['POST', '/v1/allocations', { handle: 'h3', node: 'worker-1', namespace: 'default', pod: 'db-1', podUid: 'u4' }],
  ['DELETE', '/v1/allocations/h2'],
  ['POST', '/v1/allocations', { handle: 'h4', node: 'worker-2', namespace: 'default', pod: 'web-3', podUid: 'u5', pools: ['old'] }],
];

/** The previous release's reads of what WORKLOAD leaves: every GET route it has, with their options. */
export const READS: string[] = [
  '/v1/pools',
  '/v1/pools?labelSelector=zone%3Da',
  '/v1/pools?node=worker-2',
  '/v1/pools/old',
  '/v1/pools/old6',
  '/v1/pools/gpu',
  '/v1/nodes/worker-1',
  '/v1/nodes/worker-2',
  '/v1/nodes/worker-1/pools',
  '/v1/nodes/worker-2/pools?explain=true',
  '/v1/allocations',
  '/v1/allocations?pool=old',
  '/v1/allocations?node=worker-2',
  '/v1/allocations?namespace=default&limit=2',
  '/v1/allocations/h1',
  '/v1/allocations/dual',
  '/v1/allocations/g1',
  '/v1/allocations/vm-1',
  '/v1/allocations/h3',
  '/v1/statefulsets/default/db',
  '/v1/ips/10.77.0.9/history',
  '/v1/ips/fd00:77::10/history',
  '/v1/pools/old/history',
  '/v1/pools/gpu/history',
  '/v1/events?limit=1000',
  '/v1/events?limit=5',
  '/v1/events?streamId=pool-old',
  '/v1/events?type=IpAllocated',
];

/** Undoes WORKLOAD: every release and removal. */
export const TEARDOWN: Step[] = [
  ['DELETE', '/v1/allocations/h1'],
  ['DELETE', '/v1/allocations/dual'],
  ['DELETE', '/v1/allocations/v6'],
  ['DELETE', '/v1/allocations/g1'],
  ['DELETE', '/v1/allocations/vm-1'],
  ['DELETE', '/v1/allocations/h4'],
  ['DELETE', '/v1/statefulsets/default/db'],
  ['DELETE', '/v1/nodes/worker-1'],
  ['DELETE', '/v1/nodes/worker-2'],
  ['DELETE', '/v1/pools/old'],
  ['DELETE', '/v1/pools/old6'],
  ['DELETE', '/v1/pools/gpu'],
];

/** Sends the steps in order: each one that did not answer 2xx, with its answer. */
export async function drive(base: string, steps: Step[]): Promise<string[]> {
  const failed: string[] = [];
  for (const [method, path, body] of steps) {
    const res = await call(base, method, path, body);
    if (res.status < 200 || res.status >= 300) failed.push(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return failed;
}
