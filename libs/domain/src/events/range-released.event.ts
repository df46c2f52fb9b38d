/** The StatefulSet or ip-set holds no range in this pool any more; addresses its pods still hold stay theirs until released. */
export interface RangeReleased {
  type: 'RangeReleased';
  data: { pool: string; namespace: string; name: string };
}
