import type { Queryable } from '../queryable';
import type { UnparkRequest } from './request-unpark';

/** Every parked object with its status, for `npm run cli -- parked`. */
export async function listParked(db: Queryable): Promise<Array<UnparkRequest & { status: string; unparkRequested: boolean }>> {
  const { rows } = await db.query<{ kind: string; key: string; seq: string; status: string; unpark_requested: boolean }>(
    `SELECT kind, key, parked_sequence AS seq, status, unpark_requested FROM kubernetes_objects
      WHERE parked_sequence IS NOT NULL ORDER BY kind, key`,
  );
  return rows.map((r) => ({
    kind: r.kind,
    key: r.key,
    parkedSequence: Number(r.seq),
    status: r.status,
    unparkRequested: r.unpark_requested,
  }));
}
