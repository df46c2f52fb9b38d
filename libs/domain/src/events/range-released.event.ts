/** The StatefulSet or ip-set holds no range in this pool any more; addresses its pods still hold stay theirs until released. */
export interface RangeReleased {
  type: 'RangeReleased';
  /** cluster: the owner's; absent: the default cluster */
  data: { pool: string; namespace: string; name: string; cluster?: string };
}
