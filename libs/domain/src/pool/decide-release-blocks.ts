import { inCluster } from '../cluster/cluster-scope';
import type { BlockReleased } from '../events';
import { blockCidr, blockedPool, idleBlocks, ownsBlock, type BlockedPoolView } from './block-planner';
import type { Block, PoolView } from './pool-state';

/** The pool's empty blocks whose blockReleaseSeconds have passed at `now` (milliseconds, the database clock) go back. */
export function decideReleaseIdleBlocks(state: PoolView, now: number): BlockReleased[] {
  const pool = blockedPool(state);
  return pool ? idleBlocks(pool, now).map((block) => blockReleased(pool, block, 'idle')) : [];
}

/** A deleted node's empty blocks go back at once; one still holding addresses stays until they are freed. */
export function decideReleaseNodeBlocks(state: PoolView, cluster: string, node: string): BlockReleased[] {
  const pool = blockedPool(state);
  if (!pool) return [];
  return [...pool.claimed.values()]
    .filter((block) => ownsBlock(block, cluster, node) && block.used === 0)
    .map((block) => blockReleased(pool, block, 'node-deleted'));
}

function blockReleased(pool: BlockedPoolView, block: Readonly<Block>, reason: BlockReleased['data']['reason']): BlockReleased {
  const emptiedAt = block.emptiedAt === null ? null : new Date(block.emptiedAt).toISOString();
  return {
    type: 'BlockReleased',
    data: { pool: pool.name, cidr: blockCidr(pool, block.first), node: block.node, ...inCluster(block.cluster), reason, emptiedAt },
  };
}
