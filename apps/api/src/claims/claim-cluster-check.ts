import { clusterExclusion, DomainError } from '@ipledger/domain';
import { findClusterLabels, findPoolsByName, type Queryable } from '@ipledger/projections';

/**
 * A new reference takes the claim's addresses only from a cluster their pools' clusterSelector
 * lets allocate from them (a claim moving between clusters): 409 NO_ELIGIBLE_POOL otherwise,
 * before the reference is added. The claim's first addresses were chosen for its own cluster.
 */
export async function assertPoolsServeCluster(
  db: Queryable,
  claim: string,
  held: ReadonlyArray<{ pool: string }>,
  cluster: string,
): Promise<void> {
  const [pools, labels] = await Promise.all([
    findPoolsByName(db, [...new Set(held.map((item) => item.pool))]),
    findClusterLabels(db, cluster),
  ]);
  const refusals = pools.flatMap((pool) => {
    const reason = clusterExclusion(pool, { name: cluster, labels });
    return reason ? [`${pool.name}: ${reason}`] : [];
  });
  if (refusals.length > 0) {
    throw new DomainError(
      'NO_ELIGIBLE_POOL',
      `claim "${claim}" holds addresses of pools cluster "${cluster}" may not use: ${refusals.join('; ')}`,
    );
  }
}
