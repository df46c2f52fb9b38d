import { useEffect, useRef } from 'preact/hooks';
import { listAll } from './api-client';
import type { IpHistoryItem, RecordedEvent } from './api-types';
import { ErrorBox } from './error-box';
import { Where } from './fleet-filters';
import { networkValue } from './fleet-model';
import { formatTime } from './format';
import { poolEventLine } from './pool-event-line';
import { useLoad } from './use-load';

/** The pool's own events, oldest first; the one the time control stands on is marked, later ones are dimmed. */
export function PoolHistory({
  events,
  position,
  onPick,
}: {
  events: RecordedEvent[];
  /** index of the last event included at the chosen instant; events.length - 1 when live */
  position: number;
  onPick: (index: number) => void;
}) {
  const list = useRef<HTMLOListElement>(null);
  // keep the event the time control stands on in sight
  useEffect(() => list.current?.querySelector('.current')?.scrollIntoView({ block: 'nearest' }), [position, events]);
  return (
    <ol class="events" ref={list}>
      {events.map((event, i) => (
        <li key={event.version} class={`${i > position ? 'future' : ''}${i === position ? ' current' : ''}`} data-version={event.version}>
          <button type="button" class="link" onClick={() => onPick(i)} title="show the pool as it was right after this event">
            <span class={`type ${event.type}`}>{event.type}</span>
            <span class="what">{poolEventLine(event)}</span>
            <time>
              v{event.version} · {formatTime(event.recordedAt)}
              {typeof event.metadata?.actor === 'string' ? ` · ${event.metadata.actor}` : ''}
            </time>
          </button>
        </li>
      ))}
    </ol>
  );
}

/** What a claim's reference event says happened. */
const REFERENCE_WORDS: Record<string, string> = { ClaimReferenceAdded: 'reference taken', ClaimReferenceDropped: 'reference dropped' };

/**
 * Every time one address was allocated, released or reserved, and each claim reference taken or
 * dropped on it (GET /v1/ips/{ip}/history), in one address space only: the isolated network
 * `network` (narrowed by the API), or the shared space (null: the entries of no network), since the
 * same address may be held in other networks. Each line names its cluster and network.
 */
export function IpHistory({
  ip,
  network,
  reload,
  onClose,
  onPick,
}: {
  ip: string;
  network: string | null;
  reload: number;
  onClose?: () => void;
  onPick: (at: string) => void;
}) {
  const history = useLoad(
    async () => ({
      items:
        network === null
          ? (await listAll<IpHistoryItem>(`/v1/ips/${encodeURIComponent(ip)}/history`)).filter((item) => item.network === null)
          : await listAll<IpHistoryItem>(`/v1/ips/${encodeURIComponent(ip)}/history`, { network }),
    }),
    [ip, network, reload],
  );
  return (
    <section class="ip-history" data-ip={ip}>
      <header>
        <h3>History of {ip}</h3>
        {onClose ? (
          <button type="button" class="link" onClick={onClose} aria-label="close">
            ✕
          </button>
        ) : null}
      </header>
      {history.error ? <ErrorBox error={history.error} /> : null}
      {history.data?.items.length === 0 && <p class="muted">never allocated, released or reserved</p>}
      <ol class="events" data-loaded={history.loading ? 'no' : 'yes'}>
        {history.data?.items.map((item, i) => (
          <li
            key={i}
            data-type={item.type}
            data-cluster={item.cluster}
            data-network={networkValue(item.network)}
            data-pod={item.pod ?? undefined}
          >
            <button type="button" class="link" onClick={() => onPick(item.at)} title="show the pool at this instant">
              <span class={`type ${item.type}`}>{item.type}</span>
              <span class="what">
                {item.type !== 'RangeReserved'
                  ? `${item.namespace}/${item.pod} on ${item.node} (${item.handle})`
                  : item.ipSet
                    ? `ip-set of ${item.ipSet.kind} ${item.namespace}/${item.ipSet.name}`
                    : `StatefulSet ${item.namespace}/${item.statefulSet}`}
                {item.claim ? (
                  <span class="claim" data-claim={item.claim}>
                    {' '}
                    · {REFERENCE_WORDS[item.type]} of claim {item.claim}
                  </span>
                ) : null}
              </span>
              <Where cluster={item.cluster} network={item.network} />
              <time>
                {formatTime(item.at)}
                {item.actor ? ` · ${item.actor}` : ''}
              </time>
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
