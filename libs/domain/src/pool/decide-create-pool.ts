import { DomainError } from '../errors/domain-error';
import type { PoolCreated } from '../events';
import type { PoolSpec } from './pool-spec';
import type { PoolView } from './pool-state';

export function decideCreatePool(state: PoolView, spec: PoolSpec): PoolCreated {
  if (state.exists) throw new DomainError('POOL_EXISTS', `pool "${spec.name}" already exists`);
  return { type: 'PoolCreated', data: { ...spec } };
}
