import { apiGet, listAll } from './api-client';
import type { Allocation, Block, Pool, RecordedEvent } from './api-types';
import { AddressMap } from './address-map';
import { poolLayout } from './address-map-model';
import { ClaimOfAddress } from './claims-page';
import { ErrorBox } from './error-box';
import { claimOfHandle } from './fleet-model';
import { formatTime } from './format';
import { IpHistory, PoolHistory } from './history';
import { Labels } from './labels';
import { NodeBlocks } from './node-blocks';
import { href, setParams, type Route } from './route';
import { instantAfter, justAfter, positionAt, TimeControl } from './time-control';
import { useLoad } from './use-load';
import { UtilisationBar } from './utilisation';

/** The pool's own events, every page of them. */
function poolEvents(name: string): Promise<RecordedEvent[]> {
  return listAll<RecordedEvent>(`/v1/pools/${encodeURIComponent(name)}/history`);
}

/** The pool, who held what and which node held which block, now or as they were at `at` (all replayed from the log by the API). */
async function poolState(name: string, at: string | null) {
  const path = `/v1/pools/${encodeURIComponent(name)}`;
  const [{ pool, blocks }, allocations] = await Promise.all([
    // only a pool with blockSize has blocks: asking for others' would replay them once more with `at`
    apiGet<Pool>(path, { at }).then(async (pool) => ({
      pool,
      blocks: pool.blockSize ? await listAll<Block>(`${path}/blocks`, { at }) : [],
    })),
    listAll<Allocation>('/v1/allocations', { pool: name, at }),
  ]);
  return { pool, blocks, layout: poolLayout(pool, allocations, blocks) };
}

export function PoolPage({ name, route, reload }: { name: string; route: Route; reload: number }) {
  const at = route.params.get('at');
  const block = route.params.get('block');
  const ip = route.params.get('ip');
  const history = useLoad(() => poolEvents(name), [name, reload]);
  const state = useLoad(() => poolState(name, at), [name, at, reload]);
  const events = history.data ?? [];
  const pool = state.data?.pool;
  // the selected address's holder, found by its text: `ip` comes from the place, which anyone may type
  const holder = ip && state.data ? [...state.data.layout.held.values()].find((held) => held.ip === ip) : undefined;
  const holderClaim = holder ? claimOfHandle(holder.handle) : null;

  return (
    <section class="pool-page">
      <header class="pool-head">
        <h2>
          <a href={href(['pools'])} class="muted">
            Pools
          </a>{' '}
          / {name}
        </h2>
        {pool && (
          <div class="facts">
            <code>{pool.cidr}</code>
            <span>IPv{pool.family}</span>
            {pool.network ? (
              <span data-network={pool.network}>
                network <code>{pool.network}</code>
              </span>
            ) : null}
            {pool.gateway ? (
              <span>
                <i class="dot gateway" /> gateway <code>{pool.gateway}</code>
              </span>
            ) : null}
            {pool.blockSize ? (
              <span data-block-size={pool.blockSize}>
                blocks <code>/{pool.blockSize}</code> ({pool.blockAffinity})
              </span>
            ) : null}
            {pool.disabled && <span class="badge">disabled</span>}
            <span>
              labels <Labels labels={pool.labels} />
            </span>
            {pool.nodeSelector ? (
              <span>
                nodeSelector <code>{pool.nodeSelector}</code>
              </span>
            ) : null}
            <span class="muted">
              v{pool.version} · updated {formatTime(pool.updatedAt)}
            </span>
          </div>
        )}
      </header>
      <TimeControl events={events} at={at} onChange={(next) => setParams({ at: next })} />
      <div class="pool-body">
        <div class="pool-main">
          {state.error ? <ErrorBox error={state.error} /> : null}
          {state.data && (
            <div class={state.loading ? 'stale' : ''} data-loaded={state.loading ? 'no' : 'yes'} data-at={at ?? 'live'}>
              <div class="pool-util">
                <UtilisationBar pool={state.data.pool} />
              </div>
              <AddressMap
                layout={state.data.layout}
                network={state.data.pool.network ?? null}
                view={block}
                selected={ip}
                onZoom={(cidr) => setParams({ block: cidr })}
                onSelect={(address) => setParams({ ip: address })}
              />
              {state.data.pool.blockSize ? <NodeBlocks blocks={state.data.blocks} onZoom={(cidr) => setParams({ block: cidr })} /> : null}
            </div>
          )}
        </div>
        <aside class="pool-side">
          {holderClaim !== null && <ClaimOfAddress name={holderClaim} reload={reload} />}
          {ip && (
            <IpHistory
              ip={ip}
              network={pool?.network ?? null}
              reload={reload}
              onClose={() => setParams({ ip: null })}
              onPick={(t) => setParams({ at: justAfter(t) })}
            />
          )}
          <section>
            <h3>Pool history</h3>
            {history.error ? <ErrorBox error={history.error} /> : null}
            <PoolHistory
              events={events}
              position={positionAt(events, at)}
              onPick={(i) => setParams({ at: i === events.length - 1 ? null : instantAfter(events[i]) })}
            />
          </section>
        </aside>
      </div>
    </section>
  );
}
