import { ApiProperty } from '@nestjs/swagger';
import { DOMAIN_ERROR_CODES } from '@ipledger/domain';

/** The codes the HTTP layer itself answers with (error-mapping.ts), beside the domain's refusals. */
export const HTTP_ERROR_CODES = [
  'INVALID_ARGUMENT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  /** a token scoped to a cluster naming another (external-ipam/caller-cluster.ts) */
  'CLUSTER_FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNAVAILABLE',
  'INTERNAL',
  /** any other status Nest raises */
  'ERROR',
] as const;

export const ERROR_CODES = [...new Set<string>([...DOMAIN_ERROR_CODES, ...HTTP_ERROR_CODES])];

/** The one error shape of API.md: a stable `code` for programs, a `message` for people. */
export class ErrorResponse {
  @ApiProperty({ example: 409 }) statusCode!: number;
  @ApiProperty({ example: 'Conflict' }) error!: string;
  @ApiProperty({ enum: ERROR_CODES, example: 'POOL_EXHAUSTED' }) code!: string;
  @ApiProperty({ example: 'no free IPv4 address in the eligible pools: rack-7 (full)' }) message!: string;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function errorBody(statusCode: number, code: string, message: string): ErrorResponse {
  return { statusCode, error: REASONS[statusCode] ?? 'Error', code, message };
}
