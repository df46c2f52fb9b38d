import { readStream, type RecordedEvent } from '@ipledger/event-store';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';

/** A page of a pool's own events, oldest first, after the `continue` token's version. */
export async function poolHistory(
  db: Parameters<typeof readStream>[0],
  streamId: string,
  page: { limit: number; continue?: string },
): Promise<Page<RecordedEvent>> {
  const [after] = (decodeContinue(page.continue, ['integer']) as [number] | null) ?? [0];
  const events = await readStream(db, streamId, after, { limit: page.limit + 1 });
  const items = events.slice(0, page.limit);
  return { items, continue: events.length > page.limit ? encodeContinue([items.at(-1)!.version]) : null };
}
