import type { PoolUpdated } from '../events';
import type { Labels } from '../labels';
import { existing } from './existing-pool';
import type { PoolView } from './pool-state';
import { refuseSpecialRange } from './special-range';

/** What a PATCH may change: the fields a PoolUpdated can carry. */
export type PoolPatch = Omit<PoolUpdated['data'], 'name'>;

/** Returns null when the patch changes nothing, so a repeated PATCH appends no event. */
export function decideUpdatePool(state: PoolView, name: string, patch: PoolPatch): PoolUpdated | null {
  const pool = existing(state, name);
  const data: PoolUpdated['data'] = { name };
  if (patch.labels !== undefined && JSON.stringify(sorted(patch.labels)) !== JSON.stringify(sorted(pool.labels))) {
    data.labels = patch.labels;
  }
  if (patch.nodeSelector !== undefined && patch.nodeSelector !== pool.nodeSelector) data.nodeSelector = patch.nodeSelector;
  if (patch.clusterSelector !== undefined && patch.clusterSelector !== pool.clusterSelector) data.clusterSelector = patch.clusterSelector;
  if (patch.disabled !== undefined && patch.disabled !== pool.disabled) data.disabled = patch.disabled;
  if (patch.reuseDelaySeconds !== undefined && patch.reuseDelaySeconds !== pool.reuseDelaySeconds) {
    data.reuseDelaySeconds = patch.reuseDelaySeconds;
  }
  if (patch.allowSpecialRanges !== undefined && patch.allowSpecialRanges !== pool.allowSpecialRanges) {
    // a pool already there keeps needing it
    refuseSpecialRange(name, pool.cidr, patch.allowSpecialRanges);
    data.allowSpecialRanges = patch.allowSpecialRanges;
  }
  return Object.keys(data).length > 1 ? { type: 'PoolUpdated', data } : null;
}

function sorted(labels: Readonly<Labels>): Array<[string, string]> {
  return Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
