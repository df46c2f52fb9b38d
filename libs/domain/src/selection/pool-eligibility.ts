import { LabelSelector, type Labels } from '../labels';

export interface PoolCandidate {
  name: string;
  family: 4 | 6;
  disabled: boolean;
  nodeSelector: string | null;
  /** absent: every cluster */
  clusterSelector?: string | null;
}

/** The cluster an allocation is made in, whose labels a pool's clusterSelector is matched against. */
export interface AllocatingCluster {
  name: string;
  labels: Labels;
}

export interface Exclusion {
  pool: string;
  reason: string;
}

/**
 * The rules that always hold once candidates are chosen (by name, selector or matchLabel): a node
 * selecting pools and a pool selecting nodes and clusters must all agree. Candidate order is kept.
 */
export function filterEligible<P extends PoolCandidate>(
  candidates: readonly P[],
  nodeLabels: Labels,
  families: readonly (4 | 6)[],
  cluster: AllocatingCluster,
): { eligible: P[]; excluded: Exclusion[] } {
  const eligible: P[] = [];
  const excluded: Exclusion[] = [];
  for (const pool of candidates) {
    // the first reason says why; explainPool (pool-explanation.ts) gives them all
    const [reason] = eligibilityReasons(pool, nodeLabels, families, cluster);
    if (reason) excluded.push({ pool: pool.name, reason });
    else eligible.push(pool);
  }
  return { eligible, excluded };
}

/** Every always-applied rule the pool breaks for this node, these families and this cluster, in order; none: eligible. */
export function eligibilityReasons(
  pool: PoolCandidate,
  nodeLabels: Labels,
  families: readonly (4 | 6)[],
  cluster: AllocatingCluster,
): string[] {
  const reasons: string[] = [];
  if (!families.includes(pool.family)) reasons.push(`family: pool is IPv${pool.family}, request wants IPv${families.join(' and IPv')}`);
  if (pool.disabled) reasons.push('disabled');
  if (pool.nodeSelector && !LabelSelector.parse(pool.nodeSelector).matches(nodeLabels)) {
    reasons.push(`nodeSelector "${pool.nodeSelector}" does not match the node's labels`);
  }
  const outside = clusterExclusion(pool, cluster);
  if (outside) reasons.push(outside);
  return reasons;
}

/** Why the pool's clusterSelector leaves the cluster out, or null when the cluster may allocate from it. */
export function clusterExclusion(pool: Pick<PoolCandidate, 'clusterSelector'>, cluster: AllocatingCluster): string | null {
  return pool.clusterSelector && !LabelSelector.parse(pool.clusterSelector).matches(cluster.labels)
    ? `clusterSelector "${pool.clusterSelector}" does not match the labels of cluster "${cluster.name}"`
    : null;
}

/**
 * Why a pool lies outside the address space an allocation takes its address in, or null when it
 * lies inside. `space`: the network the request names when some pool has it, else null (the pools
 * of no network, the shared space).
 */
export function networkExclusion(pool: { network?: string | null }, space: string | null): string | null {
  const network = pool.network ?? null;
  if (network === space) return null;
  return network === null
    ? `network: the pool is in the shared space, the request's is network "${space}"`
    : `network: the pool is in network "${network}", the request's is ${space === null ? 'the shared space' : `network "${space}"`}`;
}
