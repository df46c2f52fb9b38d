import { apiGet } from './api-client';
import type { Node, NodePools } from './api-types';
import { ErrorBox } from './error-box';
import { formatTime } from './format';
import { Labels } from './labels';
import { href } from './route';
import { useLoad } from './use-load';
import { UtilisationBar } from './utilisation';
import { WhyNotPool } from './why-not-pool';

/**
 * A node's labels, the pools it may allocate from (in the order allocation tries them), why each
 * other pool is left out, and why not a pool asked about. A node the API does not know shows its
 * 404 and no pools: the list would be the server default's, for labels the node does not have.
 */
export function NodePage({ name, reload }: { name: string; reload: number }) {
  const path = `/v1/nodes/${encodeURIComponent(name)}`;
  const node = useLoad(() => apiGet<Node>(path), [name, reload]);
  const pools = useLoad(() => apiGet<NodePools>(`${path}/pools`, { explain: true }), [name, reload]);
  return (
    <section class="node-page" data-node={name}>
      <h2>Node {name}</h2>
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
      {node.data && <WhyNotPool node={name} />}
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
