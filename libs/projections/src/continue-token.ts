import { ValidationError } from '@ipledger/domain';

/** List pages resume after the last key seen (keyset paging): stable under concurrent writes. */
export function encodeContinue(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeContinue(token: string | undefined, arity: number): unknown[] | null {
  if (token === undefined || token === '') return null;
  try {
    const key: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === arity) return key as unknown[];
  } catch {
    // fall through to the error below
  }
  throw new ValidationError('INVALID_ARGUMENT', `continue token "${token}" is not one this server issued`);
}
