import { clusterScopedName } from '@ipledger/domain';
import { unkeyedSql } from '../cluster-key-sql';

/**
 * The key a cluster's Kubernetes object (or sync item, or node readiness) is stored under: its
 * own key in the default cluster, as before clusters; `<cluster>/<key>` in another (a cluster is a
 * DNS label, no `/`), so two clusters' objects of one name are two rows.
 */
export const clusterKey = clusterScopedName;

/** SQL: a kubernetes_objects row's own key (namespace/name, or name), its cluster's name taken off. */
export const ownKeySql = (alias: string): string => unkeyedSql(`${alias}.cluster`, `${alias}.key`);
