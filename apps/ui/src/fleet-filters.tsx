import { listAll } from './api-client';
import type { Cluster, Pool } from './api-types';
import { networksOf, networkText, networkValue, type FleetFilter } from './fleet-model';
import { setParams, type Route } from './route';
import { useLoad, type Loaded } from './use-load';

export interface Fleet {
  clusters: Cluster[];
  pools: Pool[];
}

/** The clusters and the pools (whose networks are the fleet's networks): what both filters offer. */
export function useFleet(reload: number): Loaded<Fleet> {
  return useLoad(async () => {
    const [clusters, pools] = await Promise.all([listAll<Cluster>('/v1/clusters'), listAll<Pool>('/v1/pools')]);
    return { clusters, pools };
  }, [reload]);
}

/** The filters live in the page's place (`?cluster=&network=`), so a filtered view can be shared. */
export function fleetFilter(route: Route): FleetFilter {
  return { cluster: route.params.get('cluster') ?? '', network: route.params.get('network') ?? '' };
}

/** Two labelled selects: one cluster or every one, one network (or the shared space) or every one. */
export function FleetFilters({ fleet, filter }: { fleet: Fleet | null; filter: FleetFilter }) {
  const clusters = fleet?.clusters.map((cluster) => cluster.name) ?? [];
  const networks = fleet ? networksOf(fleet.pools) : [];
  // a chosen value not (yet) in the lists stays chosen and visible
  if (filter.cluster && !clusters.includes(filter.cluster)) clusters.push(filter.cluster);
  const values = networks.map(networkValue);
  return (
    <div class="fleet-filters">
      <label>
        Cluster{' '}
        <select name="cluster" value={filter.cluster} onChange={(e) => setParams({ cluster: e.currentTarget.value || null })}>
          <option value="">every cluster</option>
          {clusters.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Network{' '}
        <select name="network" value={filter.network} onChange={(e) => setParams({ network: e.currentTarget.value || null })}>
          <option value="">every network</option>
          {networks.map((network) => (
            <option key={networkValue(network)} value={networkValue(network)}>
              {networkText(network)}
            </option>
          ))}
          {filter.network && !values.includes(filter.network) ? <option value={filter.network}>{filter.network}</option> : null}
        </select>
      </label>
    </div>
  );
}

/** Where a line is: its cluster and its network, named on every line (data attributes for the tests and scripts). */
export function Where({ cluster, network }: { cluster: string; network: string | null }) {
  return (
    <span class="where">
      <span class="badge cluster" data-cluster={cluster} title="cluster">
        {cluster}
      </span>
      <span class="badge network" data-network={networkValue(network)} title="network">
        {networkText(network)}
      </span>
    </span>
  );
}
