import type { Queryable } from '../queryable';
import type { UnparkRequest } from './request-unpark';

/** A parked message to read back: `created` names the stream it is in (null: one bound before epochs, and lost since). */
export interface ParkedMessage extends UnparkRequest {
  streamEpoch: number;
  created: string | null;
}

/** Parked messages an operator asked to have applied again, each taken by one replica. */
export async function takeUnparkRequests(db: Queryable): Promise<ParkedMessage[]> {
  const { rows } = await db.query<{ kind: string; key: string; seq: string; epoch: string; created: string | null }>(
    `UPDATE kubernetes_objects o SET unpark_requested = false WHERE unpark_requested AND parked_sequence IS NOT NULL
     RETURNING kind, key, parked_sequence AS seq, stream_epoch AS epoch,
       (SELECT created FROM kubernetes_streams s WHERE s.epoch = o.stream_epoch) AS created`,
  );
  return rows.map((r) => ({ kind: r.kind, key: r.key, parkedSequence: Number(r.seq), streamEpoch: Number(r.epoch), created: r.created }));
}
