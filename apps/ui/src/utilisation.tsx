import type { Pool } from './api-types';
import { formatCount, percent, share } from './format';

const SEGMENTS = [
  { key: 'allocated', label: 'allocated', title: 'held by a handle' },
  { key: 'reserved', label: 'reserved', title: "held back by the pool's reserved list" },
  { key: 'range', label: 'StatefulSet', title: 'StatefulSet range addresses no pod holds now' },
  { key: 'free', label: 'free', title: 'free to hand out' },
] as const;

type Segment = (typeof SEGMENTS)[number]['key'];

/** The pool's capacity split four ways; `reservedCount` includes the unheld StatefulSet range addresses, so they are taken out of it. */
export function utilisation(pool: Pool): Record<Segment, bigint> & { capacity: bigint; used: number } {
  const range = BigInt(pool.rangeReservedCount ?? '0');
  const capacity = BigInt(pool.capacity);
  const free = BigInt(pool.free);
  return {
    allocated: BigInt(pool.allocated),
    reserved: BigInt(pool.reservedCount) - range,
    range,
    free,
    capacity,
    used: share(capacity - free, capacity),
  };
}

/** A stacked bar; a non-empty part keeps a sliver of width so 3 addresses of an IPv6 /64 still show. */
export function UtilisationBar({ pool, counts = true }: { pool: Pool; counts?: boolean }) {
  const u = utilisation(pool);
  return (
    <div class="utilisation">
      <div class="bar" role="img" aria-label={`${percent(u.used)} used`}>
        {SEGMENTS.map(({ key }) =>
          u[key] > 0n ? <span key={key} class={`seg ${key}`} style={{ flexGrow: share(u[key], u.capacity), minWidth: '3px' }} /> : null,
        )}
      </div>
      {counts && (
        <div class="counts">
          <b class="pct">{percent(u.used)}</b>
          {SEGMENTS.map(({ key, label, title }) => (
            <span key={key} class={`count ${key}`} data-count={key} data-value={u[key].toString()} title={`${u[key]} ${title}`}>
              <i class={`dot ${key}`} />
              {formatCount(u[key])} {label}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
