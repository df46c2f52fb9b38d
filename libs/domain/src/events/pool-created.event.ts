import type { PoolSpec } from '../pool/pool-spec';

/** The pool as defined: canonical CIDR, selector and reserved ranges (see PoolSpec). */
export interface PoolCreated {
  type: 'PoolCreated';
  /** `gateway` is absent from PoolCreated events recorded before pools had gateways */
  data: Omit<PoolSpec, 'gateway'> & { gateway?: string | null };
}
