import { InvalidInputError } from '../errors/domain-error';
import type { PoolSpec } from './pool-spec';

export type PoolApply =
  | { create: PoolSpec }
  | {
      patch: Pick<PoolSpec, 'labels' | 'nodeSelector' | 'disabled'> & {
        clusterSelector: string | null;
        reuseDelaySeconds: number;
        allowSpecialRanges: boolean;
        cidr?: string;
      };
    };

/**
 * An IPPool object is the whole desired pool (level-triggered): create it, or patch what a pool may
 * change. A new cidr goes to the pool's own rules (grow, or shrink while nothing is in the way);
 * the gateway, the reserved list, the blocks and the network cannot change under the addresses
 * handed out, so a new one is refused with the reason, and the pool stays as it is.
 */
const describeNetwork = (spec: PoolSpec) => (spec.network ? `network "${spec.network}"` : 'the shared space (no network)');

export function planPoolApply(current: PoolSpec | null, desired: PoolSpec): PoolApply {
  if (!current) return { create: desired };
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
  const blocks = (spec: PoolSpec) =>
    spec.blockSize === undefined ? 'none' : `blockSize ${spec.blockSize}, ${spec.blockAffinity}, ${spec.blockReleaseSeconds}s to release`;
  if (blocks(current) !== blocks(desired)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `pool "${desired.name}" has blocks ${blocks(current)}; its blocks cannot change (asked: ${blocks(desired)})`,
    );
  }
  if ((current.network ?? null) !== (desired.network ?? null)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `pool "${desired.name}" is in ${describeNetwork(current)}; it cannot move to ${describeNetwork(desired)}`,
    );
  }
  const { labels, nodeSelector, disabled } = desired;
  // the object is the whole pool: no field is the default
  const patch = {
    labels,
    nodeSelector,
    clusterSelector: desired.clusterSelector ?? null,
    disabled,
    reuseDelaySeconds: desired.reuseDelaySeconds ?? 0,
    allowSpecialRanges: desired.allowSpecialRanges ?? false,
  };
  return { patch: current.cidr === desired.cidr ? patch : { ...patch, cidr: desired.cidr } };
}
