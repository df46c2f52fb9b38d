import type { ClaimReferenceData } from './claim-reference';

/** A handle took a claim's addresses; `network` when it gave the claim its network (a persistent claim made without one). */
export interface ClaimReferenceAdded {
  type: 'ClaimReferenceAdded';
  data: ClaimReferenceData & { network?: string };
}
