import { DomainError, poolsOverlap, sameNetwork } from '@ipledger/domain';
import { parseCidr } from '@ipledger/ip';
import { findOverlappingPools } from '@ipledger/projections';
import type { Pool } from 'pg';

/**
 * After the pools read model's exclusion constraint refused an append (SQLSTATE 23P01), the pool
 * in the way, of the same network, named: what makes overlap safe across pools and replicas is the
 * constraint, inside the append's transaction; this only words the refusal.
 */
export async function refuseOverlapWithExisting(
  db: Pool,
  pools: ReadonlyArray<{ name: string; cidr: string; network?: string | null }>,
): Promise<void> {
  const existing = await findOverlappingPools(
    db,
    pools.map((pool) => pool.cidr),
  );
  for (const pool of pools) {
    // a pool that grows overlaps its own row
    const other = existing.find(
      (row) => row.name !== pool.name && sameNetwork(row, pool) && poolsOverlap(parseCidr(row.cidr), parseCidr(pool.cidr)),
    );
    if (other) throw overlapError(pool, other);
  }
}

export const overlapError = (a: { name: string; cidr: string; network?: string | null }, b: { name: string; cidr: string }) =>
  new DomainError(
    'POOL_OVERLAP',
    `pool "${a.name}" (${a.cidr}) overlaps pool "${b.name}" (${b.cidr}) in ${a.network ? `network "${a.network}"` : 'the shared space (no network)'}`,
  );

/** SQLSTATE exclusion_violation: pools_cidr_no_overlap caught two pools sharing addresses. */
export const isOverlap = (err: unknown) => (err as { code?: string } | null)?.code === '23P01';
