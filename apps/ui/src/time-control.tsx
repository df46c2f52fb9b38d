import { useEffect, useState } from 'preact/hooks';
import type { RecordedEvent } from './api-types';
import { formatTime } from './format';

/** The instant right after one the API gave: `?at=` includes events recorded at or before it, and the API's times are to the millisecond. */
export const justAfter = (iso: string) => new Date(Date.parse(iso) + 1).toISOString();
export const instantAfter = (event: RecordedEvent) => justAfter(event.recordedAt);

/** Index of the last event the instant includes (-1: before the first; the last index when live). */
export function positionAt(events: RecordedEvent[], at: string | null): number {
  if (at === null) return events.length - 1;
  const t = Date.parse(at);
  let position = -1;
  for (const [i, e] of events.entries()) if (Date.parse(e.recordedAt) < t) position = i;
  return position;
}

/**
 * A slider over the pool's own events (each notch: right after one event; the last notch, after the
 * latest event, is live), and any RFC 3339 instant typed in. Moving it sets `at`, and the pool and
 * its map are replayed at it.
 */
export function TimeControl({
  events,
  at,
  onChange,
}: {
  events: RecordedEvent[];
  at: string | null;
  onChange: (at: string | null) => void;
}) {
  const [draft, setDraft] = useState(at ?? '');
  useEffect(() => setDraft(at ?? ''), [at]);
  const last = events.length - 1;
  const position = positionAt(events, at);
  const go = (value: number) => onChange(value >= last ? null : instantAfter(events[Math.max(0, value)]));
  return (
    <div class={`time-control${at ? ' past' : ''}`}>
      <span class="when" data-at={at ?? 'live'}>
        {at ? (
          <>
            As of <b>{formatTime(at)}</b>
          </>
        ) : (
          <b>Live</b>
        )}
      </span>
      <button type="button" onClick={() => go(position - 1)} disabled={position <= 0} title="one event earlier">
        ◀
      </button>
      <input
        type="range"
        name="time"
        aria-label="time: one notch a pool event, the right end is live"
        min={0}
        max={Math.max(0, last)}
        step={1}
        value={Math.max(0, position)}
        onInput={(e) => go(Number(e.currentTarget.value))}
      />
      <button type="button" onClick={() => go(position + 1)} disabled={at === null} title="one event later">
        ▶
      </button>
      <form
        class="at"
        onSubmit={(e) => {
          e.preventDefault();
          onChange(draft.trim() || null);
        }}
      >
        <input name="at" value={draft} placeholder="2026-11-29T14:02:00Z" onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit">Go</button>
      </form>
      <button type="button" onClick={() => onChange(null)} disabled={at === null}>
        Live
      </button>
    </div>
  );
}
