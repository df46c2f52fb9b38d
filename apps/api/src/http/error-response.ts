import { ApiProperty } from '@nestjs/swagger';

/** The one error shape of API.md: a stable `code` for programs, a `message` for people. */
export class ErrorResponse {
  @ApiProperty({ example: 409 }) statusCode!: number;
  @ApiProperty({ example: 'Conflict' }) error!: string;
  @ApiProperty({ example: 'POOL_EXHAUSTED' }) code!: string;
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
