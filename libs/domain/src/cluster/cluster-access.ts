import { DomainError } from '../errors/domain-error';
import { DEFAULT_CLUSTER } from './cluster-name';

/**
 * The cluster a call acts in: the one it names (a route prefix, a query, a body), else its
 * credential's, else the default cluster. A credential of one cluster acts in that cluster only,
 * so one member's leaked token cannot touch another's nodes or handles; a fleet-wide credential
 * (`own` null) acts in any. The name itself is checked where it is used (ClusterPresence, the
 * handlers), after the route's parameters, so an over-long one answers as every over-long value does.
 */
export function actingCluster(own: string | null, named: string | undefined): string {
  if (named === undefined) return own ?? DEFAULT_CLUSTER;
  if (own !== null && named !== own) {
    throw new DomainError('CLUSTER_FORBIDDEN', `a credential of cluster "${own}" may not act in cluster "${named}"`);
  }
  return named;
}
