import type { Allocation, Claim, Pool } from './api-types';

/**
 * The fleet filters' value for the shared address space (the pools of no network): no network name
 * is "-" (a CNI network name starts with a letter or digit). '' is every network.
 */
export const SHARED_SPACE = '-';

/** What the cluster and network filters keep: '' keeps everything. */
export interface FleetFilter {
  cluster: string;
  network: string;
}

/** Each pool's isolated network by pool name (null: the shared space). */
export function poolNetworks(pools: readonly Pool[]): Map<string, string | null> {
  return new Map(pools.map((pool) => [pool.name, pool.network ?? null]));
}

/** The networks the pools are in, by name; the shared space (null) first when a pool is in it. */
export function networksOf(pools: readonly Pool[]): Array<string | null> {
  const named = [...new Set(pools.map((pool) => pool.network ?? null))];
  return named.sort((a, b) => (a === null ? -1 : b === null ? 1 : a.localeCompare(b)));
}

/** A network as a line names it. */
export const networkText = (network: string | null): string => network ?? 'shared space';

/** A network as the filter's value. */
export const networkValue = (network: string | null): string => network ?? SHARED_SPACE;

export function inNetwork(filter: string, network: string | null): boolean {
  return filter === '' || filter === networkValue(network);
}

export function inCluster(filter: string, cluster: string): boolean {
  return filter === '' || filter === cluster;
}

/** The claim whose holding a handle is (`@<name>`, claimHolding on the server); null for a pod's handle. */
export function claimOfHandle(handle: string): string | null {
  return handle.startsWith('@') ? handle.slice(1) : null;
}

/** The allocations in the filter's network (the cluster is the server's filter: `?cluster=`), by cluster, network, then address. */
export function allocationsIn(allocations: readonly Allocation[], networks: Map<string, string | null>, network: string) {
  return allocations
    .map((allocation) => ({ allocation, network: networks.get(allocation.pool) ?? null }))
    .filter((row) => inNetwork(network, row.network))
    .sort(
      (a, b) =>
        a.allocation.cluster.localeCompare(b.allocation.cluster) ||
        networkText(a.network).localeCompare(networkText(b.network)) ||
        a.allocation.ip.localeCompare(b.allocation.ip, 'en', { numeric: true }),
    );
}

/** The networks of a claim's addresses (its pools'); none until it holds one. */
export function claimNetworks(claim: Claim, networks: Map<string, string | null>): Array<string | null> {
  return [...new Set(claim.items.map((item) => networks.get(item.pool) ?? null))];
}

/**
 * A claim is in a cluster when it was made there (its addresses are held there) or one of its
 * references is there (a VM that migrated in), and in a network when one of its addresses is.
 */
export function claimIn(claim: Claim, networks: Map<string, string | null>, filter: FleetFilter): boolean {
  const clusters = [claim.cluster, ...claim.references.map((reference) => reference.cluster)];
  return (
    clusters.some((cluster) => inCluster(filter.cluster, cluster)) &&
    (filter.network === '' || claimNetworks(claim, networks).some((network) => inNetwork(filter.network, network)))
  );
}
