import { InvalidInputError } from '../errors/domain-error';

export const MAX_CLAIM_NAME_LENGTH = 253;

const CLAIM_NAME = /^[A-Za-z0-9._:/-]+$/;

/**
 * A claim's name is fleet-wide and chosen by its maker (`kubevirt:<cluster>:<namespace>:<vm>`, an
 * OVN-Kubernetes owner id): 1 to 253 letters, digits and `._:/-`.
 */
export function validateClaimName(name: string): string {
  if (name.length === 0 || name.length > MAX_CLAIM_NAME_LENGTH || !CLAIM_NAME.test(name)) {
    throw new InvalidInputError(
      'INVALID_NAME',
      `claim name must be 1 to ${MAX_CLAIM_NAME_LENGTH} letters, digits and "._:/-" (got ${JSON.stringify(name.slice(0, 300))})`,
    );
  }
  return name;
}

/**
 * The handle a claim's addresses are held under in the pools: `@` and its name (at most 254
 * characters, a handle's 255 fit). The pools keep one address one holder, and a claim's first
 * allocation, retried, finds what it holds. No claim name has an `@`, and no caller's handle may
 * start with one (assertCallerHandle), so the two never meet.
 */
export const claimHolding = (name: string): string => `@${name}`;

/** A caller's handle: never a claim's holding, which only the claim's own commands act on. */
export function assertCallerHandle(handle: string): string {
  if (handle.startsWith('@'))
    throw new InvalidInputError('INVALID_ARGUMENT', `handle "${handle}": a handle starting with "@" is a claim's, not a caller's`);
  return handle;
}
