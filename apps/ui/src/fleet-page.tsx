import { useState } from 'preact/hooks';
import { listAll } from './api-client';
import type { Allocation, Claim } from './api-types';
import { ClaimReferences } from './claims-page';
import { ErrorBox } from './error-box';
import { FleetFilters, fleetFilter, useFleet, Where } from './fleet-filters';
import { allocationsIn, claimOfHandle, inCluster, inNetwork, networksOf, networkText, poolNetworks } from './fleet-model';
import { formatCount } from './format';
import { Labels } from './labels';
import { href, type Route } from './route';
import { useLoad } from './use-load';

/** The table draws this many addresses at most; the counts above it are of every one. */
const MAX_ROWS = 1000;

/**
 * The fleet: its clusters, its networks (with their pools: isolated networks may reuse a CIDR) and
 * the addresses held in them, narrowed to one cluster (on the server: `GET /v1/allocations?cluster=`)
 * and one network (the pools'). A claim's address names its claim and the claim's references.
 */
export function FleetPage({ route, reload }: { route: Route; reload: number }) {
  const filter = fleetFilter(route);
  const fleet = useFleet(reload);
  const [progress, setProgress] = useState(0);
  const held = useLoad(async () => {
    const [allocations, claims] = await Promise.all([
      listAll<Allocation>('/v1/allocations', { cluster: filter.cluster }, setProgress),
      listAll<Claim>('/v1/claims'),
    ]);
    return { allocations, claims: new Map(claims.map((claim) => [claim.name, claim])) };
  }, [filter.cluster, reload]);

  const networks = poolNetworks(fleet.data?.pools ?? []);
  const rows = held.data ? allocationsIn(held.data.allocations, networks, filter.network) : [];
  const perCluster = new Map<string, number>();
  const perNetwork = new Map<string | null, number>();
  for (const { allocation, network } of rows) {
    perCluster.set(allocation.cluster, (perCluster.get(allocation.cluster) ?? 0) + 1);
    perNetwork.set(network, (perNetwork.get(network) ?? 0) + 1);
  }
  const clusters = (fleet.data?.clusters ?? []).filter((cluster) => inCluster(filter.cluster, cluster.name));
  const shownNetworks = networksOf(fleet.data?.pools ?? []).filter((network) => inNetwork(filter.network, network));
  const loaded = fleet.data && held.data && !fleet.loading && !held.loading;

  return (
    <section class="fleet-page">
      <div class="toolbar">
        <h2>Fleet</h2>
        <FleetFilters fleet={fleet.data} filter={filter} />
      </div>
      {fleet.error ? <ErrorBox error={fleet.error} /> : null}
      {held.error ? <ErrorBox error={held.error} /> : null}
      {held.loading && !held.data ? <p class="muted">loading… {formatCount(BigInt(progress))} addresses</p> : null}
      {fleet.data && (
        <div class="columns fleet-summary">
          <section>
            <h3>Clusters ({clusters.length})</h3>
            <table class="clusters">
              <thead>
                <tr>
                  <th>Cluster</th>
                  <th>Labels</th>
                  <th>Addresses shown</th>
                </tr>
              </thead>
              <tbody>
                {clusters.map((cluster) => (
                  <tr key={cluster.name} data-cluster={cluster.name}>
                    <td>{cluster.name}</td>
                    <td>
                      <Labels labels={cluster.labels} />
                    </td>
                    <td data-count>{perCluster.get(cluster.name) ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section>
            <h3>Networks ({shownNetworks.length})</h3>
            <table class="networks">
              <thead>
                <tr>
                  <th>Network</th>
                  <th>Pools</th>
                  <th>Addresses shown</th>
                </tr>
              </thead>
              <tbody>
                {shownNetworks.map((network) => (
                  <tr key={network ?? ''} data-network={network ?? '-'}>
                    <td>{networkText(network)}</td>
                    <td>
                      {fleet
                        .data!.pools.filter((pool) => (pool.network ?? null) === network)
                        .map((pool) => (
                          <span key={pool.name} class="pool-ref">
                            <a href={href(['pools', pool.name])}>{pool.name}</a> <code>{pool.cidr}</code>
                            {pool.clusterSelector ? <code class="muted"> clusters: {pool.clusterSelector}</code> : null}
                          </span>
                        ))}
                    </td>
                    <td data-count>{perNetwork.get(network) ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </div>
      )}
      {fleet.data && held.data && (
        <section>
          <h3>
            Addresses ({rows.length}){rows.length > MAX_ROWS ? `, the first ${MAX_ROWS} shown` : ''}
          </h3>
          <table class="addresses" data-loaded={loaded ? 'yes' : 'no'} data-count={rows.length}>
            <thead>
              <tr>
                <th>Address</th>
                <th>Cluster · network</th>
                <th>Pool</th>
                <th>Holder</th>
                <th>Handle</th>
              </tr>
            </thead>
            <tbody>
              {rows.slice(0, MAX_ROWS).map(({ allocation: a, network }) => {
                const claimName = claimOfHandle(a.handle);
                const claim = claimName === null ? undefined : held.data!.claims.get(claimName);
                return (
                  <tr key={`${a.cluster}/${a.handle}/${a.family}`} data-ip={a.ip} data-cluster={a.cluster} data-network={network ?? '-'}>
                    <td>
                      <a href={href(['pools', a.pool], { ip: a.ip })}>
                        <code>{a.ip}</code>
                      </a>
                    </td>
                    <td>
                      <Where cluster={a.cluster} network={network} />
                    </td>
                    <td>
                      <a href={href(['pools', a.pool])}>{a.pool}</a>
                    </td>
                    <td>
                      {a.namespace}/{a.pod}{' '}
                      <span class="muted">
                        on <a href={href(['nodes', a.node], { cluster: a.cluster })}>{a.node}</a>
                      </span>
                    </td>
                    <td>
                      {claimName === null ? (
                        <code>{a.handle}</code>
                      ) : (
                        <span class="claim-held" data-claim={claimName}>
                          claim <a href={href(['claims', claimName])}>{claimName}</a>
                          {claim ? <ClaimReferences claim={claim} /> : null}
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
