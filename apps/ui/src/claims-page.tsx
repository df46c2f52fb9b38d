import { apiGet, listAll } from './api-client';
import type { Claim } from './api-types';
import { ErrorBox } from './error-box';
import { FleetFilters, fleetFilter, useFleet, Where } from './fleet-filters';
import { claimIn, claimNetworks, networkText, poolNetworks } from './fleet-model';
import { formatTime } from './format';
import { IpHistory } from './history';
import { href, type Route } from './route';
import { justAfter } from './time-control';
import { useLoad } from './use-load';

/** A claim's live references, oldest first: each pod that carries it, with its cluster (two during a migration). */
export function ClaimReferences({ claim }: { claim: Claim }) {
  if (claim.references.length === 0) return <span class="muted"> no reference{claim.persistent ? ' (kept: persistent)' : ''}</span>;
  return (
    <ul class="references">
      {claim.references.map((reference) => (
        <li key={`${reference.cluster}/${reference.handle}`} data-cluster={reference.cluster} data-pod={reference.pod}>
          <span class="badge cluster">{reference.cluster}</span> {reference.namespace}/{reference.pod}{' '}
          <span class="muted">
            on <a href={href(['nodes', reference.node], { cluster: reference.cluster })}>{reference.node}</a>
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The claim that holds an address, with its references: beside the address's history. */
export function ClaimOfAddress({ name, reload }: { name: string; reload: number }) {
  const claim = useLoad(() => apiGet<Claim>(`/v1/claims/${encodeURIComponent(name)}`), [name, reload]);
  return (
    <section class="claim-of" data-claim={name}>
      <h3>
        Held by claim <a href={href(['claims', name])}>{name}</a>
      </h3>
      {claim.error ? <ErrorBox error={claim.error} /> : null}
      {claim.data ? <ClaimReferences claim={claim.data} /> : null}
    </section>
  );
}

/** The claims (`GET /v1/claims`), in the filters' cluster (made there, or a reference there) and network (of an address). */
export function ClaimsPage({ route, reload }: { route: Route; reload: number }) {
  const filter = fleetFilter(route);
  const fleet = useFleet(reload);
  const claims = useLoad(() => listAll<Claim>('/v1/claims'), [reload]);
  const networks = poolNetworks(fleet.data?.pools ?? []);
  const rows = (claims.data ?? []).filter((claim) => claimIn(claim, networks, filter));
  return (
    <section class="claims-page">
      <div class="toolbar">
        <h2>Claims</h2>
        <FleetFilters fleet={fleet.data} filter={filter} />
      </div>
      {fleet.error ? <ErrorBox error={fleet.error} /> : null}
      {claims.error ? <ErrorBox error={claims.error} /> : null}
      {fleet.data && claims.data && (
        <table class="claims" data-loaded={fleet.loading || claims.loading ? 'no' : 'yes'} data-count={rows.length}>
          <thead>
            <tr>
              <th>Claim</th>
              <th>Addresses</th>
              <th>References</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((claim) => (
              <tr key={claim.name} data-claim={claim.name}>
                <td>
                  <a href={href(['claims', claim.name])}>{claim.name}</a>
                  {claim.persistent ? <span class="badge kept">persistent</span> : null}
                </td>
                <td>
                  {claim.items.map((item) => (
                    <div key={item.ip} data-ip={item.ip}>
                      <code>{item.ip}</code> <Where cluster={item.cluster} network={networks.get(item.pool) ?? null} />
                    </div>
                  ))}
                  {claim.items.length === 0 ? <span class="muted">none yet</span> : null}
                </td>
                <td>
                  <ClaimReferences claim={claim} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {claims.data?.length === 0 ? <p class="muted">no claims</p> : null}
    </section>
  );
}

/** One claim: its addresses, its references (cluster, pod, node, since) and each address's history, references taken and dropped included. */
export function ClaimPage({ name, reload }: { name: string; reload: number }) {
  const fleet = useFleet(reload);
  const claim = useLoad(() => apiGet<Claim>(`/v1/claims/${encodeURIComponent(name)}`), [name, reload]);
  const networks = poolNetworks(fleet.data?.pools ?? []);
  const c = claim.data;
  return (
    <section class="claim-page" data-claim={name}>
      <h2>
        <a href={href(['claims'])} class="muted">
          Claims
        </a>{' '}
        / {name}
      </h2>
      {claim.error ? <ErrorBox error={claim.error} /> : null}
      {fleet.error ? <ErrorBox error={fleet.error} /> : null}
      {c && fleet.data && (
        <>
          <p class="facts">
            <span>
              made in cluster <b>{c.cluster}</b>
            </span>
            <span>
              networks <b>{claimNetworks(c, networks).map(networkText).join(', ') || 'none yet'}</b>
            </span>
            {c.network ? (
              <span>
                CNI network <code>{c.network}</code>
              </span>
            ) : null}
            <span>{c.persistent ? 'persistent: kept without references until deleted' : 'transient: freed with its last reference'}</span>
            <span class="muted">since {formatTime(c.createdAt)}</span>
          </p>
          <div class="columns">
            <section>
              <h3>Addresses ({c.items.length})</h3>
              <table class="claim-addresses">
                <tbody>
                  {c.items.map((item) => (
                    <tr key={item.ip} data-ip={item.ip}>
                      <td>
                        <a href={href(['pools', item.pool], { ip: item.ip })}>
                          <code>{item.ip}</code>
                        </a>
                      </td>
                      <td>
                        <Where cluster={item.cluster} network={networks.get(item.pool) ?? null} />
                      </td>
                      <td>
                        pool <a href={href(['pools', item.pool])}>{item.pool}</a>
                      </td>
                      <td>
                        <code>{item.handle}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
            <section>
              <h3>References ({c.references.length})</h3>
              <table class="claim-references">
                <thead>
                  <tr>
                    <th>Cluster</th>
                    <th>Pod</th>
                    <th>Node</th>
                    <th>Handle</th>
                    <th>Since</th>
                  </tr>
                </thead>
                <tbody>
                  {c.references.map((reference) => (
                    <tr key={`${reference.cluster}/${reference.handle}`} data-cluster={reference.cluster} data-pod={reference.pod}>
                      <td>
                        <span class="badge cluster">{reference.cluster}</span>
                      </td>
                      <td>
                        {reference.namespace}/{reference.pod}
                      </td>
                      <td>
                        <a href={href(['nodes', reference.node], { cluster: reference.cluster })}>{reference.node}</a>
                      </td>
                      <td>
                        <code>{reference.handle}</code>
                      </td>
                      <td>{formatTime(reference.since)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {c.references.length === 0 ? <ClaimReferences claim={c} /> : null}
            </section>
          </div>
          <div class="claim-histories">
            {c.items.map((item) => (
              <IpHistory
                key={item.ip}
                ip={item.ip}
                network={networks.get(item.pool) ?? null}
                reload={reload}
                onPick={(at) => (location.hash = href(['pools', item.pool], { ip: item.ip, at: justAfter(at) }))}
              />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
