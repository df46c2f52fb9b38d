import { HttpException } from '@nestjs/common';
import { DomainError, type DomainErrorCode } from '@ipledger/domain';
import { InvalidCursorError } from '@ipledger/event-store';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable';
import { errorBody, type ErrorResponse, type HTTP_ERROR_CODES } from './error-response';
import { ReplaysBusyError } from '../infrastructure/replays-busy.error';
import { RequestTimeoutError } from './request-timeout.error';

/** The only place where a domain refusal becomes an HTTP status. */
const STATUS: Record<DomainErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  INVALID_CIDR: 400,
  INVALID_IP: 400,
  INVALID_LABEL: 400,
  INVALID_SELECTOR: 400,
  INVALID_NAME: 400,
  INVALID_ANNOTATION: 400,
  IP_NOT_IN_POOL: 400,
  SPECIAL_RANGE: 400,
  POOL_NOT_FOUND: 404,
  NODE_NOT_FOUND: 404,
  STATEFULSET_NOT_FOUND: 404,
  ALLOCATION_NOT_FOUND: 404,
  IP_SET_NOT_FOUND: 404,
  CLUSTER_NOT_FOUND: 404,
  CLAIM_NOT_FOUND: 404,
  POOL_EXISTS: 409,
  POOL_OVERLAP: 409,
  POOL_IN_USE: 409,
  CLUSTER_IN_USE: 409,
  // a third pod for a claim: a migration has one source and one target
  CLAIM_REFERENCES_FULL: 409,
  CIDR_NOT_NESTED: 409,
  POOL_EXHAUSTED: 409,
  POOL_DISABLED: 409,
  IP_IN_USE: 409,
  IP_RESERVED: 409,
  NO_ELIGIBLE_POOL: 409,
  CONCURRENCY_CONFLICT: 409,
  // no eligible pool had room for the workload's set: kubelet is told at once (CNI code 100 and more)
  IP_SET_NOT_RESERVED: 409,
  // the pod's annotations may forbid a pool: kubelet retries the ADD once the watcher has sent the pod
  POD_NOT_SEEN: 503,
  // a surge pod beyond its workload's set: kubelet retries until an old pod's DEL frees an address
  IP_SET_FULL: 503,
  // its workload's deletion was applied: kubelet retries until the pod is gone, or the new workload of that name is seen
  IP_SET_WORKLOAD_DELETED: 503,
  // a node's credential acting beyond its node (another node's handle or pod, an external address): admin's to do
  NODE_FORBIDDEN: 403,
  CLUSTER_FORBIDDEN: 403,
};

const HTTP_CODES: Record<number, (typeof HTTP_ERROR_CODES)[number]> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

export const MAX_BODY_BYTES = 1024 * 1024;

/** A body of another type (curl -d sends application/x-www-form-urlencoded, unless told): what to send instead. */
const SEND_JSON = "send the body as JSON with the header content-type: application/json (curl: -H 'content-type: application/json')";

/** What Fastify raises before a route runs: the body too large, not JSON, or of another type. */
function bodyError(err: unknown): ErrorResponse | null {
  const { code, statusCode, message } = (err ?? {}) as { code?: string; statusCode?: number; message?: string };
  if (typeof code !== 'string' || !code.startsWith('FST_ERR_CTP_')) {
    return err instanceof SyntaxError && statusCode === 400
      ? errorBody(400, 'INVALID_ARGUMENT', `request body is not valid JSON: ${message}`)
      : null;
  }
  if (statusCode === 413) return errorBody(413, 'PAYLOAD_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB)`);
  if (statusCode === 415) return errorBody(415, 'UNSUPPORTED_MEDIA_TYPE', SEND_JSON);
  return errorBody(400, 'INVALID_ARGUMENT', `request body is not valid JSON: ${message}`);
}

export function toErrorResponse(err: unknown): ErrorResponse {
  if (err instanceof DomainError) return errorBody(STATUS[err.code], err.code, err.message);
  if (err instanceof InvalidCursorError) return errorBody(400, 'INVALID_ARGUMENT', err.message);
  if (err instanceof HttpException) {
    const status = err.getStatus();
    // Fastify's refusal of the body's type, as Nest hands it on
    if (status === 415) return errorBody(415, 'UNSUPPORTED_MEDIA_TYPE', SEND_JSON);
    const response = err.getResponse() as { code?: string; message?: string | string[] } | string;
    const message = typeof response === 'string' ? response : [response.message ?? err.message].flat().join('; ');
    const code =
      typeof response === 'object' && response.code ? response.code : (HTTP_CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'ERROR'));
    return errorBody(status, code, message);
  }
  if (err instanceof RequestTimeoutError) return errorBody(503, 'UNAVAILABLE', err.message);
  if (err instanceof ReplaysBusyError) return errorBody(503, 'UNAVAILABLE', err.message);
  const body = bodyError(err);
  if (body) return body;
  const code = (err as { code?: string } | null)?.code;
  // query_canceled: past statement_timeout, or cancelled because its request ended
  if (code === '57014') return errorBody(503, 'UNAVAILABLE', 'the database query took too long and was cancelled; retry later');
  if (isDatabaseUnavailable(err)) return errorBody(503, 'UNAVAILABLE', 'the database is unreachable; retry later');
  return errorBody(500, 'INTERNAL', 'internal error');
}

/** The headers an error's answer carries besides its body: when to come back, for a refusal that passes. */
export function errorHeaders(err: unknown): Record<string, string> {
  return err instanceof ReplaysBusyError ? { 'retry-after': String(err.retryAfterSeconds) } : {};
}
