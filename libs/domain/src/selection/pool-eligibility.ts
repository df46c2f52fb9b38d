import { LabelSelector, type Labels } from '../labels';

export interface PoolCandidate {
  name: string;
  family: 4 | 6;
  disabled: boolean;
  nodeSelector: string | null;
}

export interface Exclusion {
  pool: string;
  reason: string;
}

/**
 * The rules that always hold once candidates are chosen (by name, selector or matchLabel): a node
 * selecting pools and a pool selecting nodes must both agree. Candidate order is kept.
 */
export function filterEligible<P extends PoolCandidate>(
  candidates: readonly P[],
  nodeLabels: Labels,
  families: readonly (4 | 6)[],
): { eligible: P[]; excluded: Exclusion[] } {
  const eligible: P[] = [];
  const excluded: Exclusion[] = [];
  for (const pool of candidates) {
    const reason = exclusionReason(pool, nodeLabels, families);
    if (reason) excluded.push({ pool: pool.name, reason });
    else eligible.push(pool);
  }
  return { eligible, excluded };
}

function exclusionReason(pool: PoolCandidate, nodeLabels: Labels, families: readonly (4 | 6)[]): string | null {
  if (!families.includes(pool.family)) return `family: pool is IPv${pool.family}, request wants IPv${families.join(' and IPv')}`;
  if (pool.disabled) return 'disabled';
  if (pool.nodeSelector && !LabelSelector.parse(pool.nodeSelector).matches(nodeLabels)) {
    return `nodeSelector "${pool.nodeSelector}" does not match the node's labels`;
  }
  return null;
}
