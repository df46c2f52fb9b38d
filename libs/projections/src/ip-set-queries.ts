import { clusterOf, ipSetOfRange, namespaceKey, ipSetRangeName, type IpSetKind, type IpSetRef } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import { canonicalIp } from '@ipledger/ip';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';
import { unkeyedSql } from './cluster-key-sql';
import type { Queryable } from './queryable';

/** A Deployment's or bare ReplicaSet's set of addresses, and how many of them its pods hold now. */
export interface IpSetView {
  cluster: string;
  namespace: string;
  kind: IpSetKind;
  name: string;
  pool: string;
  range: { start: string; end: string };
  size: number;
  held: number;
}

export interface IpSetListQuery {
  cluster: string;
  namespace?: string;
  limit: number;
  continue?: string;
}

/** An ip-set is a pool range whose name is `<Kind>:<name>` (ipSetRangeName): the one place ranges are kept. */
const SELECT = `SELECT r.cluster, ${unkeyedSql('r.cluster', 'r.namespace')} AS namespace, r.name AS "rangeName", r.pool, host(r.first_ip) AS start, host(r.last_ip) AS "end",
    (r.last_ip - r.first_ip + 1)::integer AS size,
    (SELECT count(*) FROM allocations a WHERE a.pool = r.pool AND a.ip BETWEEN r.first_ip AND r.last_ip)::integer AS held
  FROM pool_ranges r`;
/** Only the ranges of ip-sets, never a StatefulSet's (whose names hold no ':'). */
const IS_IP_SET = `r.name ~ '^(Deployment|ReplicaSet):'`;

interface Row {
  cluster: string;
  namespace: string;
  rangeName: string;
  pool: string;
  start: string;
  end: string;
  size: number;
  held: number;
}

function view(row: Row): IpSetView {
  const { namespace, kind, name } = ipSetOfRange(row.namespace, row.rangeName)!;
  return {
    cluster: row.cluster,
    namespace,
    kind,
    name,
    pool: row.pool,
    range: { start: canonicalIp(row.start), end: canonicalIp(row.end) },
    size: row.size,
    held: row.held,
  };
}

/** The workload's set: one range, but two if concurrent first pods on two replicas reserved one each (the lower pool's first). */
export async function findIpSets(db: Queryable, ref: IpSetRef): Promise<IpSetView[]> {
  const { rows } = await db.query<Row>(
    prepared(`${SELECT} WHERE r.namespace = $1 AND r.name = $2 ORDER BY r.pool`, [
      namespaceKey(clusterOf(ref), ref.namespace),
      ipSetRangeName(ref),
    ]),
  );
  return rows.map(view);
}

export const findIpSet = async (db: Queryable, ref: IpSetRef): Promise<IpSetView | null> => (await findIpSets(db, ref))[0] ?? null;

/** One cluster's, by (namespace, kind, name), keyset paging. */
export async function listIpSets(db: Queryable, query: IpSetListQuery): Promise<Page<IpSetView>> {
  const after = decodeContinue(query.continue, ['string', 'string']) as [string, string] | null;
  const values: unknown[] = [];
  const where = [IS_IP_SET, `r.cluster = $${values.push(query.cluster)}`];
  // a cluster's stored namespaces (namespaceKey) share its prefix, so they sort as the namespaces do
  const key = (namespace: string) => namespaceKey(query.cluster, namespace);
  if (query.namespace !== undefined) where.push(`r.namespace = $${values.push(key(query.namespace))}`);
  if (after) where.push(`(r.namespace, r.name) > ($${values.push(key(after[0]))}, $${values.push(after[1])})`);
  const { rows } = await db.query<Row>(
    prepared(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY r.namespace, r.name LIMIT $${values.push(query.limit + 1)}`, values),
  );
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return { items: items.map(view), continue: rows.length > query.limit && last ? encodeContinue([last.namespace, last.rangeName]) : null };
}
