import { DomainError } from '../errors/domain-error';
import { DEFAULT_CLUSTER, validateClusterName } from './cluster-name';

/**
 * The cluster a call acts in: the one it names (a route prefix, a query, a body), else its
 * credential's, else the default cluster. A credential of one cluster acts in that cluster only,
 * so one member's leaked token cannot touch another's nodes or handles; a fleet-wide credential
 * (`own` null) acts in any.
 */
export function actingCluster(own: string | null, named: string | undefined): string {
  if (named === undefined) return own ?? DEFAULT_CLUSTER;
  validateClusterName(named);
  if (own !== null && named !== own) {
    throw new DomainError('CLUSTER_FORBIDDEN', `a credential of cluster "${own}" may not act in cluster "${named}"`);
  }
  return named;
}

/** Pools are fleet-wide: a credential of one cluster may read them, never change them. */
export function assertFleetWide(own: string | null, what: string): void {
  if (own !== null) throw new DomainError('CLUSTER_FORBIDDEN', `a credential of cluster "${own}" may not ${what}: pools are fleet-wide`);
}
