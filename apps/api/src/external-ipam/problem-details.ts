import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOperation, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../config';
import { DeclareAccess } from '../http/access';
import { ERROR_CODES, type ErrorResponse } from '../http/error-response';

/** Where the external IPAM contract is served: every error under it is a problem detail. */
export const EXTERNAL_IPAM_PREFIX = '/external-ipam';

/** RFC 9457 problem details, with ipledger's stable `code` as an extension member. */
export class ProblemDetails {
  @ApiProperty({ example: 'urn:ipledger:problem:POOL_EXHAUSTED', description: 'urn:ipledger:problem:<code>' }) type!: string;
  @ApiProperty({ example: 'Conflict' }) title!: string;
  @ApiProperty({ example: 409 }) status!: number;
  @ApiProperty({ example: 'no free IPv4 address in the eligible pools: ext-blue-0c1d2e3f4a5b (full)' }) detail!: string;
  @ApiProperty({ enum: ERROR_CODES, example: 'POOL_EXHAUSTED' }) code!: string;
}

const isErrorResponse = (body: unknown): body is ErrorResponse =>
  typeof body === 'object' && body !== null && typeof (body as ErrorResponse).statusCode === 'number' && 'code' in body;

export const problemOf = ({ statusCode, error, code, message }: ErrorResponse): ProblemDetails => ({
  type: `urn:ipledger:problem:${code}`,
  title: error,
  status: statusCode,
  detail: message,
  code,
});

const under = (path: string | undefined) => path === EXTERNAL_IPAM_PREFIX || path?.startsWith(`${EXTERNAL_IPAM_PREFIX}/`) === true;

/**
 * Fastify's onSend hook: an error answered under /external-ipam, by whichever part answered it (the
 * access hook, the exception filter, the body parser, the router's 404), leaves in the one error
 * shape rewritten as problem+json; a 503 tells when to come back (the caller's queue honours it).
 */
export function answerProblemsUnderExternalIpam(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: null, payload: unknown) => void,
): void {
  if (reply.statusCode < 400 || typeof payload !== 'string' || !(under(request.routeOptions.url) || under(request.url.split('?')[0]))) {
    done(null, payload);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    done(null, payload);
    return;
  }
  if (!isErrorResponse(body)) {
    done(null, payload);
    return;
  }
  void reply.header('content-type', 'application/problem+json; charset=utf-8');
  if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) void reply.header('retry-after', '1');
  done(null, JSON.stringify(problemOf(body)));
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'malformed input, nothing changed',
  401: 'no or unknown bearer token (when tokens are configured)',
  403: "the token's role may not do this, or (CLUSTER_FORBIDDEN) its cluster is not the body's",
  404: 'the network is not registered',
  409: 'refused by the current state (code says why), nothing changed',
  413: 'the body is over 1 MiB',
  501: 'NOT_IMPLEMENTED: a field this version does not serve',
  503: 'the database is away (Retry-After); retry',
};

/** A route of the external IPAM contract: its lowest role, summary, bearer requirement and problem+json errors. */
export const ExternalIpamRoute = (role: Role, summary: string, ...statuses: Array<400 | 404 | 409 | 413 | 501>) =>
  applyDecorators(
    DeclareAccess(role),
    ApiOperation({ summary, description: `Needs the \`${role}\` role (or a higher one) when tokens are configured.` }),
    ApiBearerAuth(),
    ApiExtraModels(ProblemDetails),
    ...[...statuses, 401, 403, 503].map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status],
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDetails) } } },
      }),
    ),
  );
