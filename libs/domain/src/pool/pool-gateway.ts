import type { PoolView } from './pool-state';
import { poolAddress } from './pool-address';

/** The pool's gateway as text, null when it has none. */
export function poolGateway(state: PoolView): string | null {
  return state.gateway === null || !state.cidr ? null : poolAddress({ cidr: state.cidr }, state.gateway);
}
