import type { PoolView } from './pool-state';

/**
 * The pool's network on the events of its addresses: the space an allocation is unique in (the
 * allocations read model's key) and an address's history is narrowed by. Absent for the shared space.
 */
export function inNetwork(pool: PoolView): { poolNetwork?: string } {
  return pool.network === null ? {} : { poolNetwork: pool.network };
}
