import { InvalidInputError } from '../errors/domain-error';
import type { PoolSpec } from './pool-spec';

export type PoolApply = { create: PoolSpec } | { patch: Pick<PoolSpec, 'labels' | 'nodeSelector' | 'disabled'> };

/**
 * An IPPool object is the whole desired pool (level-triggered): create it, or patch what a pool may
 * change. Its address space cannot change under the addresses it handed out, so a new cidr or
 * reserved list is refused with the reason, and the pool stays as it is.
 */
export function planPoolApply(current: PoolSpec | null, desired: PoolSpec): PoolApply {
  if (!current) return { create: desired };
  if (current.cidr !== desired.cidr) {
    throw new InvalidInputError('INVALID_ARGUMENT', `pool "${desired.name}" has cidr ${current.cidr}; it cannot become ${desired.cidr}`);
  }
  if ((current.gateway ?? null) !== desired.gateway) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `pool "${desired.name}" has gateway ${current.gateway ?? 'none'}; it cannot become ${desired.gateway ?? 'none'}`,
    );
  }
  if (JSON.stringify(current.reserved) !== JSON.stringify(desired.reserved)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `pool "${desired.name}" reserves [${current.reserved.join(', ')}]; reserved addresses cannot change (asked: [${desired.reserved.join(', ')}])`,
    );
  }
  const { labels, nodeSelector, disabled } = desired;
  return { patch: { labels, nodeSelector, disabled } };
}
