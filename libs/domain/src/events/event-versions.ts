import type { DomainEvent } from './index';

/** The schema version each event type is written with now; older versions are read through upcast.ts. */
const CURRENT: Partial<Record<DomainEvent['type'], number>> = {
  // v2 records the holder (node, namespace, pod) so the log alone says who let an address go
  IpReleased: 2,
};

export const schemaVersionOf = (type: string): number => CURRENT[type as DomainEvent['type']] ?? 1;
