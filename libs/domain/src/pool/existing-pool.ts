import type { Cidr } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { PoolView } from './pool-state';

/** The pool a decision acts on, which must exist (POOL_NOT_FOUND otherwise). */
export function existing(state: PoolView, name: string): PoolView & { cidr: Cidr } {
  if (!state.exists || !state.cidr) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" does not exist`);
  return state as PoolView & { cidr: Cidr };
}
