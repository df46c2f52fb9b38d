import type { KubeKind, KubeObject } from '@ipledger/messaging';
import type { Queryable } from '../queryable';

/**
 * Trims the objects an older release stored whole (a StatefulSet's pod template, env values
 * included) with `trim`, as messages are trimmed now. A row a newer message replaced meanwhile is
 * left alone. Answers how many were trimmed.
 */
export async function trimStoredObjects(db: Queryable, trim: (kind: KubeKind, object: KubeObject) => KubeObject): Promise<number> {
  const { rows } = await db.query<{ kind: KubeKind; key: string; epoch: string; seq: string; object: KubeObject }>(
    // only StatefulSets were ever stored whole; pods are stored trimmed from the start (and are many)
    `SELECT kind, key, stream_epoch AS epoch, stream_sequence AS seq, object FROM kubernetes_objects
      WHERE object IS NOT NULL AND kind = 'statefulset'`,
  );
  if (rows.length === 0) return 0;
  const trimmed = rows.map((r) => ({ kind: r.kind, key: r.key, epoch: r.epoch, seq: r.seq, object: trim(r.kind, r.object) }));
  const { rowCount } = await db.query(
    `UPDATE kubernetes_objects o SET object = t.object
       FROM jsonb_to_recordset($1) AS t(kind text, key text, epoch bigint, seq bigint, object jsonb)
      WHERE o.kind = t.kind AND o.key = t.key AND (o.stream_epoch, o.stream_sequence) = (t.epoch, t.seq)
        AND o.object IS DISTINCT FROM t.object`,
    [JSON.stringify(trimmed)],
  );
  return rowCount ?? 0;
}
