import { InvalidInputError } from '@ipledger/domain';

/** What each position of a continue key holds (the SQL type of its column); a token whose key does not fit is refused. */
export type KeyPart = 'string' | 'smallint' | 'integer' | 'bigint';

/** The ranges of PostgreSQL's integer types: a larger number would fail in the query (a 500), not page. */
const INTEGER_RANGE: Record<Exclude<KeyPart, 'string'>, readonly [number, number]> = {
  smallint: [-32768, 32767],
  integer: [-2147483648, 2147483647],
  // what a bigint column (the log's positions) holds and a JSON number keeps exactly
  bigint: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** No key part of a list (names, handles) is longer; a longer one was not issued here. */
const MAX_KEY_STRING = 512;

/** List pages resume after the last key seen (keyset paging): stable under concurrent writes. */
export function encodeContinue(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function fits(value: unknown, part: KeyPart): boolean {
  if (part !== 'string') {
    const [min, max] = INTEGER_RANGE[part];
    return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
  }
  return typeof value === 'string' && value.length <= MAX_KEY_STRING && !value.includes('\u0000');
}

/** The key a token holds, checked part by part, so a forged token never reaches a query. */
export function decodeContinue(token: string | undefined, parts: readonly KeyPart[]): unknown[] | null {
  if (token === undefined || token === '') return null;
  try {
    const key: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === parts.length && parts.every((part, i) => fits(key[i], part))) return key as unknown[];
  } catch {
    // fall through to the error below
  }
  const shown = token.length > 64 ? `${token.slice(0, 64)}…` : token;
  throw new InvalidInputError('INVALID_ARGUMENT', `continue token "${shown}" is not one this server issued`);
}
