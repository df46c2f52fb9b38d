/** A PUT of a claim made by an allocation: it now keeps its addresses without references, until deleted. */
export interface ClaimPersisted {
  type: 'ClaimPersisted';
  data: { name: string };
}
