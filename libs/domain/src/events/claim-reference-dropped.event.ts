import type { ClaimReferenceData } from './claim-reference';

/** A handle let go of a claim's addresses (its DELETE); the claim keeps them for its other reference, or while persistent. */
export interface ClaimReferenceDropped {
  type: 'ClaimReferenceDropped';
  data: ClaimReferenceData;
}
