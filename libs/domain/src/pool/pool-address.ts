import { formatIp, type Cidr } from '@ipledger/ip';

/** An address of the pool, as text in the pool's family. */
export const poolAddress = (pool: { readonly cidr: Readonly<Cidr> }, value: bigint): string =>
  formatIp({ family: pool.cidr.family, value });
