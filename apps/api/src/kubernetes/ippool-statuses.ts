import type { IpPoolCondition, IpPoolStatusMessage } from '@ipledger/messaging';
import { readIpPoolStatusRows, type Queryable } from '@ipledger/projections';

/** `refused: <CODE>: <message>`, as the consumer records a refusal (refusal-as-status.ts). */
const REFUSED = /^refused: ([A-Z_]+): ([\s\S]*)$/;

/**
 * The status of every live IPPool the consumer has applied: Ready when its last message was
 * applied, Refused with the API's code and message when it was refused, with the pool's counts
 * (of the pool as it stands: a refused change leaves the previous spec in force). A message being
 * applied ('applying') is left out: its outcome comes at the next read. Each with its cluster, whose
 * watcher writes it.
 */
export async function ipPoolStatuses(db: Queryable): Promise<Array<{ cluster: string; message: IpPoolStatusMessage }>> {
  const rows = await readIpPoolStatusRows(db);
  return rows.map((row) => {
    const observedGeneration = row.generation === null ? undefined : Number(row.generation);
    const refused = REFUSED.exec(row.status);
    const ready: Omit<IpPoolCondition, 'type'> = refused
      ? { status: 'False', reason: refused[1], message: refused[2] }
      : row.status.startsWith('parked')
        ? { status: 'False', reason: 'Parked', message: row.status }
        : { status: 'True', reason: 'Accepted', message: `pool ${row.name} holds this spec` };
    const conditions: IpPoolCondition[] = [
      { type: 'Ready', ...ready, observedGeneration },
      refused
        ? { type: 'Refused', status: 'True', reason: refused[1], message: refused[2], observedGeneration }
        : { type: 'Refused', status: 'False', reason: 'Accepted', message: '', observedGeneration },
    ];
    const counts = row.capacity === null ? {} : { capacity: row.capacity, allocated: row.allocated!, free: row.free! };
    return { cluster: row.cluster, message: { name: row.name, uid: row.uid, status: { conditions, ...counts, observedGeneration } } };
  });
}
