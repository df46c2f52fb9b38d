import { DomainError } from '../errors/domain-error';
import type { PoolDeleted } from '../events';
import { existing } from './existing-pool';
import type { PoolView } from './pool-state';
import { describeRangeOwner } from './range-owner';

export function decideDeletePool(state: PoolView, name: string): PoolDeleted {
  const pool = existing(state, name);
  if (pool.holders.size > 0) {
    throw new DomainError('POOL_IN_USE', `pool "${name}" still has ${pool.holders.size} allocated address(es); release them first`);
  }
  if (pool.ranges.size > 0) {
    const owners = [...pool.ranges.keys()].map(describeRangeOwner).join(', ');
    throw new DomainError('POOL_IN_USE', `pool "${name}" still holds the range(s) of ${owners}; delete them first`);
  }
  return { type: 'PoolDeleted', data: { name } };
}
