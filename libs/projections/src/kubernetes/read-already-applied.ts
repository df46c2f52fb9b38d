import type { Queryable } from '../queryable';
import { clusterKey } from './cluster-key';
import type { StreamPosition } from './stream-position';

/**
 * Per message, whether it, or a newer one of its object, was applied to the end (one query for
 * all). Messages are ordered by their StreamPosition, so a redelivered older message is
 * recognised; one whose commands were cut short ('applying': the process died between them) or
 * that was parked is not.
 */
export async function readAlreadyApplied(
  db: Queryable,
  messages: ReadonlyArray<{ cluster: string; kind: string; key: string } & StreamPosition>,
): Promise<boolean[]> {
  const { rows } = await db.query<{ i: number }>(
    `SELECT t.i FROM jsonb_to_recordset($1) AS t(i int, kind text, key text, epoch bigint, seq bigint)
      WHERE EXISTS (SELECT 1 FROM kubernetes_objects o WHERE o.kind = t.kind AND o.key = t.key
        AND ((o.stream_epoch, o.stream_sequence) > (t.epoch, t.seq)
          OR ((o.stream_epoch, o.stream_sequence) = (t.epoch, t.seq) AND o.status <> 'applying' AND o.parked_sequence IS NULL)))`,
    [
      JSON.stringify(
        messages.map(({ cluster, kind, key, streamEpoch, streamSequence }, i) => ({
          i,
          kind,
          key: clusterKey(cluster, key),
          epoch: streamEpoch,
          seq: streamSequence,
        })),
      ),
    ],
  );
  const applied = new Set(rows.map((r) => r.i));
  return messages.map((_, i) => applied.has(i));
}
