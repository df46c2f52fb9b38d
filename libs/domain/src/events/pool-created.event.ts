import type { PoolSpec } from '../pool/pool-spec';

/** The pool as defined: canonical CIDR, selector and reserved ranges (see PoolSpec). */
export interface PoolCreated {
  type: 'PoolCreated';
  data: PoolSpec;
}
