import { readAll, type ReadAllResult } from '@ipledger/event-store';
import type { PoolClient } from 'pg';
import { projectEvents } from './project-events';

/**
 * Projects, event by event as the inline path does, what was committed since `snapshot` (text of
 * pg_current_snapshot()) was taken, in log order; returns how many events that was.
 */
export async function projectUnseen(client: PoolClient, snapshot: string, batchSize = 1000): Promise<number> {
  let count = 0;
  let after: string | null = null;
  for (;;) {
    const page: ReadAllResult = await readAll(client, {
      after,
      limit: batchSize,
      wholeSnapshot: true,
      notVisibleIn: snapshot,
    });
    if (page.events.length === 0) return count;
    await projectEvents(client, page.events);
    count += page.events.length;
    after = page.next;
  }
}
