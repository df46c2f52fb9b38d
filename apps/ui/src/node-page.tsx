import { apiGet } from './api-client';
import type { Node, NodePools } from './api-types';
import { ErrorBox } from './error-box';
import { formatTime } from './format';
import { Labels } from './labels';
import { href } from './route';
import { useLoad } from './use-load';
import { UtilisationBar } from './utilisation';
import { WhyNotPool } from './why-not-pool';

/** A node's path in the API: in `cluster`, or (null) in the caller's cluster (its token's, else default). */
export function nodePath(name: string, cluster: string | null): string {
  const node = `nodes/${encodeURIComponent(name)}`;
  return cluster === null ? `/v1/${node}` : `/v1/clusters/${encodeURIComponent(cluster)}/${node}`;
}

/**
 * A node's labels, the pools it may allocate from (in the order allocation tries them), why each
 * other pool is left out, and why not a pool asked about. A node the API does not know shows its
 * 404 and no pools: the list would be the server default's, for labels the node does not have.
 * Nodes are per cluster: `cluster` (the place's `?cluster=`) names whose; null: the caller's.
 */
export function NodePage({ name, cluster, reload }: { name: string; cluster: string | null; reload: number }) {
  const path = nodePath(name, cluster);
  const node = useLoad(() => apiGet<Node>(path), [path, reload]);
  const pools = useLoad(() => apiGet<NodePools>(`${path}/pools`, { explain: true }), [path, reload]);
  return (
    <section class="node-page" data-node={name} data-cluster={cluster ?? undefined}>
      <h2>
        Node {name}
        {cluster ? <span class="badge cluster">{cluster}</span> : null}
      </h2>
      {node.error ? <ErrorBox error={node.error} /> : null}
      {node.data && (
        <p class="facts">
          <span>
            labels <Labels labels={node.data.labels} />
          </span>
          <span class="muted">
            v{node.data.version} · updated {formatTime(node.data.updatedAt)}
          </span>
        </p>
      )}
      {node.data && pools.error ? <ErrorBox error={pools.error} /> : null}
      {node.data && <WhyNotPool path={path} />}
      {node.data && pools.data && (
        <div class="columns">
          <section>
            <h3>Eligible pools ({pools.data.items.length}), in allocation order</h3>
            <table class="pools eligible">
              <tbody>
                {pools.data.items.map((pool, i) => (
                  <tr key={pool.name} data-pool={pool.name}>
                    <td class="muted">{i + 1}</td>
                    <td>
                      <a href={href(['pools', pool.name])}>{pool.name}</a>
                    </td>
                    <td>
                      <code>{pool.cidr}</code>
                    </td>
                    <td class="util">
                      <UtilisationBar pool={pool} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section>
            <h3>Left out ({pools.data.excluded?.length ?? 0})</h3>
            <table class="excluded">
              <tbody>
                {(pools.data.excluded ?? []).map(({ pool, reason }) => (
                  <tr key={pool} data-pool={pool}>
                    <td>
                      <a href={href(['pools', pool])}>{pool}</a>
                    </td>
                    <td class="reason">{reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </div>
      )}
    </section>
  );
}
