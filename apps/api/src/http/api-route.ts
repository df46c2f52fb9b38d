import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Role } from '../config';
import { DeclareAccess } from './access';
import { ErrorResponse } from './error-response';

type ErrorStatus = 400 | 404 | 409 | 413;

const DESCRIPTIONS: Record<number, string> = {
  400: 'malformed input (INVALID_*), nothing changed',
  401: 'UNAUTHENTICATED: no or unknown bearer token (when tokens are configured)',
  403: "FORBIDDEN: the token's role may not do this",
  404: 'the object does not exist',
  409: 'refused by the current state (code says why), nothing changed',
  413: 'PAYLOAD_TOO_LARGE: the body is over 1 MiB',
  503: 'UNAVAILABLE: the database (or bus) is away or too slow, or (`?at=`) this replica replays as much of the past as it takes (Retry-After); retry',
};

const errors = (statuses: number[]) =>
  statuses.map((status) => ApiResponse({ status, type: ErrorResponse, description: DESCRIPTIONS[status] }));

/**
 * A route behind the bearer token: the lowest role that may run it (API.md "Access": reader for
 * GET, allocator for writing allocations, admin for the rest; the auth hook reads it from the
 * matched route), its summary, the security requirement (so Swagger UI's "Try it out" sends the
 * token) and its error answers, all in the one error shape. Placed under the route's own response
 * decorators, which may describe a status more precisely. A handler without it (or
 * ApiPublicRoute) is refused to everyone.
 */
export const ApiRoute = (role: Role, summary: string, ...statuses: ErrorStatus[]) => apiRoute(role, false, summary, statuses);

/** ApiRoute of a write to a fleet-wide thing (a pool): a credential of one cluster is refused it (403 CLUSTER_FORBIDDEN). */
export const ApiFleetRoute = (role: Role, summary: string, ...statuses: ErrorStatus[]) => apiRoute(role, true, summary, statuses);

const apiRoute = (role: Role, fleetWide: boolean, summary: string, statuses: ErrorStatus[]) =>
  applyDecorators(
    DeclareAccess(role, fleetWide),
    ApiOperation({ summary, description: `Needs the \`${role}\` role (or a higher one) when tokens are configured.` }),
    ApiBearerAuth(),
    ...errors([...statuses, 401, 403, 503]),
  );

/** A route open to anyone (probes, metrics scrapes): no security requirement. */
export const ApiPublicRoute = (summary: string, ...statuses: 503[]) =>
  applyDecorators(DeclareAccess('public'), ApiOperation({ summary, security: [] }), ...errors(statuses));
