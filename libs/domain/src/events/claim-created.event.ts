/**
 * A claim began: by its first allocation (transient, freed with its last reference) or by a PUT
 * (persistent, kept until deleted). `network`: the one network its addresses are of (null: not
 * known yet, set by its first reference); `cluster`: the cluster it was made in.
 */
export interface ClaimCreated {
  type: 'ClaimCreated';
  data: { name: string; persistent: boolean; network: string | null; cluster: string };
}
