/**
 * Every refusal the domain can make, as a stable code. HTTP status mapping lives in one place
 * (apps/api/src/http/error-mapping.ts); the domain itself knows nothing about HTTP.
 */
export const DOMAIN_ERROR_CODES = [
  'INVALID_ARGUMENT',
  'INVALID_CIDR',
  'INVALID_IP',
  'INVALID_LABEL',
  'INVALID_SELECTOR',
  'INVALID_NAME',
  'INVALID_ANNOTATION',
  'POOL_EXISTS',
  'POOL_OVERLAP',
  'SPECIAL_RANGE',
  'POOL_NOT_FOUND',
  'POOL_IN_USE',
  'CIDR_NOT_NESTED',
  'POOL_EXHAUSTED',
  'POOL_DISABLED',
  'IP_IN_USE',
  'IP_RESERVED',
  'IP_NOT_IN_POOL',
  'NODE_NOT_FOUND',
  'STATEFULSET_NOT_FOUND',
  'NO_ELIGIBLE_POOL',
  'ALLOCATION_NOT_FOUND',
  'CONCURRENCY_CONFLICT',
  'POD_NOT_SEEN',
  'IP_SET_FULL',
  'IP_SET_NOT_RESERVED',
  'IP_SET_NOT_FOUND',
  'IP_SET_WORKLOAD_DELETED',
  'NODE_FORBIDDEN',
  'CLUSTER_NOT_FOUND',
  'CLUSTER_IN_USE',
  'CLAIM_NOT_FOUND',
  'CLAIM_REFERENCES_FULL',
  'CLUSTER_FORBIDDEN',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** Malformed input: always a 400, and nothing is appended. */
export class InvalidInputError extends DomainError {
  constructor(code: Extract<DomainErrorCode, `INVALID_${string}`>, message: string) {
    super(code, message);
    this.name = 'InvalidInputError';
  }
}
