/**
 * The continuous range a StatefulSet, or a Deployment's or ReplicaSet's ip-set (name
 * `<Kind>:<name>`), holds in this pool is now `start..end` (a first reservation, or the same start
 * extended or shrunk in place). Addresses in it go to that owner's pods only.
 */
export interface RangeReserved {
  type: 'RangeReserved';
  /** cluster: the owner's (absent: the default cluster); poolNetwork: the pool's isolated network (absent: the shared space), for an address's history */
  data: { pool: string; namespace: string; name: string; start: string; end: string; poolNetwork?: string; cluster?: string };
}
