import { useEffect, useRef } from 'preact/hooks';
import { listAll } from './api-client';
import type { IpHistoryItem, RecordedEvent } from './api-types';
import { ErrorBox } from './error-box';
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

/**
 * Every time one address was allocated, released or reserved (GET /v1/ips/{ip}/history), in the
 * isolated network `network` only when given (the same address may be held in other networks).
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
  onClose: () => void;
  onPick: (at: string) => void;
}) {
  const history = useLoad(
    async () => ({
      items: await listAll<IpHistoryItem>(`/v1/ips/${encodeURIComponent(ip)}/history`, network === null ? {} : { network }),
    }),
    [ip, network, reload],
  );
  return (
    <section class="ip-history" data-ip={ip}>
      <header>
        <h3>History of {ip}</h3>
        <button type="button" class="link" onClick={onClose} aria-label="close">
          ✕
        </button>
      </header>
      {history.error ? <ErrorBox error={history.error} /> : null}
      {history.data?.items.length === 0 && <p class="muted">never allocated, released or reserved</p>}
      <ol class="events">
        {history.data?.items.map((item, i) => (
          <li key={i}>
            <button type="button" class="link" onClick={() => onPick(item.at)} title="show the pool at this instant">
              <span class={`type ${item.type}`}>{item.type}</span>
              <span class="what">
                {item.type !== 'RangeReserved'
                  ? `${item.namespace}/${item.pod} on ${item.node} (${item.handle})`
                  : item.ipSet
                    ? `ip-set of ${item.ipSet.kind} ${item.namespace}/${item.ipSet.name}`
                    : `StatefulSet ${item.namespace}/${item.statefulSet}`}
                {item.claim ? (
                  <span class="claim">
                    {' '}
                    · claim {item.claim} in cluster {item.cluster}
                  </span>
                ) : null}
                {item.network ? <span class="network"> · network {item.network}</span> : null}
              </span>
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
