import type { Queryable } from '../queryable';

export interface UnparkRequest {
  kind: string;
  key: string;
  parkedSequence: number;
}

/** `npm run cli -- unpark`: asks the API to apply the parked messages of these objects (all: none named) again. */
export async function requestUnpark(db: Queryable, objects: Array<{ kind: string; key: string }> | 'all'): Promise<UnparkRequest[]> {
  const { rows } = await db.query<{ kind: string; key: string; seq: string }>(
    `UPDATE kubernetes_objects SET unpark_requested = true
      WHERE parked_sequence IS NOT NULL AND ($1::jsonb IS NULL OR (kind, key) IN (SELECT * FROM jsonb_to_recordset($1) AS o(kind text, key text)))
     RETURNING kind, key, parked_sequence AS seq`,
    [objects === 'all' ? null : JSON.stringify(objects)],
  );
  return rows.map((r) => ({ kind: r.kind, key: r.key, parkedSequence: Number(r.seq) }));
}
