import { claimHolding } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import { findAllocationsByHandles, type AllocationView } from './allocation-queries';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface ClaimReferenceView {
  cluster: string;
  handle: string;
  node: string;
  namespace: string;
  pod: string;
  since: string;
}

export interface ClaimView {
  name: string;
  cluster: string;
  network: string | null;
  persistent: boolean;
  /** the addresses it holds (under its holding handle `@<name>`), IPv4 first */
  items: AllocationView[];
  /** its live references, oldest first */
  references: ClaimReferenceView[];
  createdAt: string;
}

const SELECT = `SELECT c.name, c.cluster, c.network, c.persistent, ${rfc3339('c.created_at')} AS "createdAt",
  coalesce((SELECT json_agg(json_build_object('cluster', r.cluster, 'handle', r.handle, 'node', r.node, 'namespace', r.namespace,
                                              'pod', r.pod, 'since', ${rfc3339('r.since')}) ORDER BY r.since, r.handle)
              FROM claim_references r WHERE r.claim = c.name), '[]') AS "references"
  FROM claims c`;

/** The claims' rows with the addresses each holds, read in one query for them all. */
async function withItems(db: Queryable, rows: Array<Omit<ClaimView, 'items'>>): Promise<ClaimView[]> {
  const items =
    rows.length === 0
      ? []
      : await findAllocationsByHandles(
          db,
          rows.map((row) => claimHolding(row.name)),
        );
  return rows.map((row) => ({ ...row, items: items.filter((item) => item.handle === claimHolding(row.name)) }));
}

export async function findClaim(db: Queryable, name: string): Promise<ClaimView | null> {
  const { rows } = await db.query<Omit<ClaimView, 'items'>>(prepared(`${SELECT} WHERE c.name = $1`, [name]));
  const [claim] = await withItems(db, rows);
  return claim ?? null;
}

/** By name, keyset-paged. */
export async function listClaims(db: Queryable, query: { limit: number; continue?: string }): Promise<Page<ClaimView>> {
  const after = decodeContinue(query.continue, ['string']) as [string] | null;
  const { rows } = await db.query<Omit<ClaimView, 'items'>>(
    prepared(`${SELECT} WHERE c.name > $1 ORDER BY c.name LIMIT $2`, [after?.[0] ?? '', query.limit + 1]),
  );
  const items = await withItems(db, rows.slice(0, query.limit));
  const last = items.at(-1);
  return { items, continue: rows.length > query.limit && last ? encodeContinue([last.name]) : null };
}

/** Whose a claim reference is: the attachment that took it. */
export interface ClaimReferenceOwner {
  handle: string;
  cluster: string;
  node: string;
  namespace: string;
  pod: string;
}

/**
 * A claim's address as its reference is answered it: under the reference's handle, cluster, node
 * and pod (the holding keeps its first reference's: once a migration's source is gone, the
 * target's answer names the target), naming the claim.
 */
export const asReference = (item: AllocationView, reference: ClaimReferenceOwner, claim: string): AllocationView & { claim: string } => ({
  ...item,
  ...reference,
  claim,
});

/** A claim's addresses as its reference `handle` is answered them (asReference); none when it is no claim's reference. */
export async function findReferencedAllocations(
  db: Queryable,
  handle: string,
  cluster: string,
): Promise<Array<AllocationView & { claim: string }>> {
  const { rows } = await db.query<ClaimReferenceOwner & { claim: string }>(
    prepared('SELECT claim, handle, cluster, node, namespace, pod FROM claim_references WHERE cluster = $1 AND handle = $2', [
      cluster,
      handle,
    ]),
  );
  if (rows.length === 0) return [];
  const { claim, ...reference } = rows[0];
  return (await findAllocationsByHandles(db, [claimHolding(claim)])).map((item) => asReference(item, reference, claim));
}

/** The handles of a cluster's pod that are claim references (its launcher's, its IPAMClaim attachments'): a deleted pod drops them. */
export async function findPodReferences(
  db: Queryable,
  cluster: string,
  namespace: string,
  pod: string,
): Promise<Array<{ handle: string; claim: string }>> {
  const { rows } = await db.query<{ handle: string; claim: string }>(
    prepared('SELECT handle, claim FROM claim_references WHERE cluster = $1 AND namespace = $2 AND pod = $3 ORDER BY handle', [
      cluster,
      namespace,
      pod,
    ]),
  );
  return rows;
}
