import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { apiGet, listAll } from './api-client';
import type { List, Pool } from './api-types';
import { ErrorBox } from './error-box';
import { formatCount } from './format';
import { Labels } from './labels';
import { href, setParams, type Route } from './route';
import { useLoad } from './use-load';
import { utilisation, UtilisationBar } from './utilisation';

const PAGE_SIZES = ['100', '500', '1000', 'all'];
/** Rows have one fixed height (styles.css), so a long list draws only the rows in sight, plus a margin. */
const ROW_HEIGHT = 56;
const WINDOWED_FROM = 300;
const MARGIN_ROWS = 15;

/** The slice of `count` rows that the window shows, following scroll and resize; everything below WINDOWED_FROM rows. */
function useVisibleRows(count: number, body: { current: HTMLElement | null }): [number, number] {
  const [range, setRange] = useState<[number, number]>([0, Math.min(count, 60)]);
  useLayoutEffect(() => {
    if (count < WINDOWED_FROM) return;
    const update = () => {
      const top = body.current?.getBoundingClientRect().top ?? 0;
      const first = Math.max(0, Math.floor(-top / ROW_HEIGHT) - MARGIN_ROWS);
      const last = Math.min(count, Math.ceil((innerHeight - top) / ROW_HEIGHT) + MARGIN_ROWS);
      setRange((r) => (r[0] === first && r[1] === last ? r : [first, last]));
    };
    update();
    addEventListener('scroll', update, { passive: true });
    addEventListener('resize', update);
    return () => {
      removeEventListener('scroll', update);
      removeEventListener('resize', update);
    };
  }, [count]);
  return count < WINDOWED_FROM ? [0, count] : range;
}

interface Loaded {
  items: Pool[];
  continue: string | null;
}

/**
 * The pools, filtered by a label selector on the server and paged by `continue` (the tokens of the
 * pages before are kept, so "previous" works too). Sorting by utilisation orders what is loaded:
 * "all" loads every page first.
 */
export function PoolsPage({ route, reload }: { route: Route; reload: number }) {
  const selector = route.params.get('labelSelector') ?? '';
  const limit = route.params.get('limit') ?? '100';
  const sort = route.params.get('sort') ?? 'name';
  const cont = route.params.get('continue');
  const trail = (route.params.get('trail') ?? '').split(',').filter(Boolean);
  const [draft, setDraft] = useState(selector);
  const [progress, setProgress] = useState(0);
  const pools = useLoad<Loaded>(async () => {
    if (limit === 'all') return { items: await listAll<Pool>('/v1/pools', { labelSelector: selector }, setProgress), continue: null };
    return apiGet<List<Pool>>('/v1/pools', { labelSelector: selector, limit, continue: cont });
  }, [selector, limit, cont, reload]);

  const items = pools.data?.items ?? [];
  const direction = sort === 'util-asc' ? 1 : -1;
  const rows =
    sort === 'name'
      ? items
      : items
          .map((pool) => ({ pool, used: utilisation(pool).used }))
          .sort((a, b) => (a.used - b.used) * direction)
          .map(({ pool }) => pool);
  const body = useRef<HTMLTableSectionElement>(null);
  const [first, last] = useVisibleRows(rows.length, body);
  const nextSort = sort === 'util-desc' ? 'util-asc' : sort === 'util-asc' ? 'name' : 'util-desc';

  return (
    <section>
      <div class="toolbar">
        <form
          class="selector"
          onSubmit={(e) => {
            e.preventDefault();
            setParams({ labelSelector: draft || null, continue: null, trail: null });
          }}
        >
          <label for="selector">Label selector</label>
          <input
            id="selector"
            name="labelSelector"
            value={draft}
            placeholder="e.g. zone=a,tier in (web,db)"
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit">Filter</button>
        </form>
        <label class="pagesize">
          Page size{' '}
          <select value={limit} onChange={(e) => setParams({ limit: e.currentTarget.value, continue: null, trail: null })}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
      {pools.error ? <ErrorBox error={pools.error} /> : null}
      {pools.loading && limit === 'all' ? <p class="muted">loading… {formatCount(BigInt(progress))} pools</p> : null}
      {pools.data && (
        <>
          <table class="pools" data-loaded={pools.loading ? 'no' : 'yes'} data-count={rows.length}>
            <colgroup>
              <col class="c-name" />
              <col class="c-cidr" />
              <col class="c-family" />
              <col class="c-labels" />
              <col class="c-util" />
            </colgroup>
            <thead>
              <tr>
                <th>Name</th>
                <th>CIDR</th>
                <th>Family</th>
                <th>Labels</th>
                <th class="sortable">
                  <button type="button" class="link" onClick={() => setParams({ sort: nextSort === 'name' ? null : nextSort })}>
                    Utilisation {sort === 'util-desc' ? '▼' : sort === 'util-asc' ? '▲' : '↕'}
                  </button>
                </th>
              </tr>
            </thead>
            <tbody ref={body}>
              {first > 0 && <tr class="spacer" style={{ height: `${first * ROW_HEIGHT}px` }} />}
              {rows.slice(first, last).map((pool) => (
                <tr key={pool.name} data-pool={pool.name} class={pool.disabled ? 'disabled' : ''}>
                  <td>
                    <a href={href(['pools', pool.name])}>{pool.name}</a>
                    {pool.disabled && <span class="badge">disabled</span>}
                  </td>
                  <td>
                    <code>{pool.cidr}</code>
                    {pool.network ? <span class="badge network">{pool.network}</span> : null}
                  </td>
                  <td>IPv{pool.family}</td>
                  <td>
                    <Labels labels={pool.labels} />
                  </td>
                  <td class="util">
                    <UtilisationBar pool={pool} />
                  </td>
                </tr>
              ))}
              {last < rows.length && <tr class="spacer" style={{ height: `${(rows.length - last) * ROW_HEIGHT}px` }} />}
            </tbody>
          </table>
          <div class="pager">
            <span class="muted">
              {rows.length === 0 ? 'no pools' : `${formatCount(BigInt(rows.length))} pools${limit === 'all' ? '' : ' on this page'}`}
            </span>
            {trail.length > 0 || cont ? (
              <button
                type="button"
                onClick={() => setParams({ continue: trail.at(-1) || null, trail: trail.slice(0, -1).join(',') || null })}
              >
                ← Previous
              </button>
            ) : null}
            {pools.data.continue ? (
              <button
                type="button"
                onClick={() =>
                  setParams({ continue: pools.data!.continue, trail: cont || trail.length ? [...trail, cont ?? ''].join(',') : null })
                }
              >
                Next →
              </button>
            ) : null}
          </div>
        </>
      )}
    </section>
  );
}
