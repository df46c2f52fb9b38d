import { prepared, type RecordedEvent } from '@ipledger/event-store';
import type { ClaimCreated, ClaimEvent, ClaimReferenceAdded } from '@ipledger/domain';
import type { Queryable } from './queryable';
import { insertSql, rowParams } from './row-sql';

export interface ClaimRow {
  name: string;
  cluster: string;
  network: string | null;
  persistent: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface ClaimReferenceRow {
  handle: string;
  claim: string;
  cluster: string;
  node: string;
  namespace: string;
  pod: string;
  since: Date;
}

type Projected = Pick<RecordedEvent, 'data' | 'version' | 'recordedAt'>;

const CLAIM_COLUMNS: readonly (keyof ClaimRow)[] = ['name', 'cluster', 'network', 'persistent', 'version', 'created_at', 'updated_at'];
const REFERENCE_COLUMNS: readonly (keyof ClaimReferenceRow)[] = ['handle', 'claim', 'cluster', 'node', 'namespace', 'pod', 'since'];

export function claimRow(event: Projected): ClaimRow {
  const d = event.data as ClaimCreated['data'];
  return {
    name: d.name,
    cluster: d.cluster,
    network: d.network,
    persistent: d.persistent,
    version: event.version,
    created_at: event.recordedAt,
    updated_at: event.recordedAt,
  };
}

export function claimReferenceRow(event: Projected): ClaimReferenceRow {
  const d = event.data as ClaimReferenceAdded['data'];
  return { handle: d.handle, claim: d.name, cluster: d.cluster, node: d.node, namespace: d.namespace, pod: d.pod, since: event.recordedAt };
}

/** Every claim event moves its row's version and updated_at; a reference may give the claim its network, and ClaimPersisted makes it persistent. */
const TOUCH = `UPDATE claims SET version = $2, updated_at = $3, network = coalesce(network, $4), persistent = persistent OR $5 WHERE name = $1`;

export async function projectClaimEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as ClaimEvent;
  const touch = (network: string | null, persistent: boolean) =>
    db.query(prepared(TOUCH, [e.data.name, event.version, event.recordedAt, network, persistent]));
  switch (e.type) {
    case 'ClaimCreated':
      await db.query(prepared(insertSql('claims', CLAIM_COLUMNS), rowParams(claimRow(event), CLAIM_COLUMNS)));
      return;
    case 'ClaimPersisted':
      await touch(null, true);
      return;
    case 'ClaimReferenceAdded':
      await touch(e.data.network ?? null, false);
      await db.query(prepared(insertSql('claim_references', REFERENCE_COLUMNS), rowParams(claimReferenceRow(event), REFERENCE_COLUMNS)));
      return;
    case 'ClaimReferenceDropped':
      await touch(null, false);
      await db.query(prepared('DELETE FROM claim_references WHERE cluster = $1 AND handle = $2', [e.data.cluster, e.data.handle]));
      return;
    case 'ClaimDeleted':
      await db.query(prepared('DELETE FROM claim_references WHERE claim = $1', [e.data.name]));
      await db.query(prepared('DELETE FROM claims WHERE name = $1', [e.data.name]));
      return;
  }
}
