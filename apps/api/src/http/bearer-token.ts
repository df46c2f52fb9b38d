/** RFC 6750's b64token: what a bearer token may hold. */
const B64TOKEN = '[A-Za-z0-9\\-._~+/]+=*';
/** `Bearer` in any case (RFC 7235: the scheme is case-insensitive), one or more spaces, one b64token, and nothing after it. */
const BEARER = new RegExp(`^bearer +(${B64TOKEN})$`, 'i');
const TOKEN = new RegExp(`^${B64TOKEN}$`);

/** Whether a token could be sent in an Authorization header at all (a configured one that could not is refused at start). */
export const isBearerToken = (token: string): boolean => TOKEN.test(token);

/**
 * The token of a request's Authorization header, from its header fields as sent (`rawHeaders`:
 * name, value, name, value...; Node's `headers` keeps the first of two Authorization fields and
 * drops the other unseen). Null unless there is exactly one such field holding exactly one bearer
 * token: two fields, a list, trailing data or another scheme are no credential, rather than a guess
 * at which part counts.
 */
export function bearerToken(rawHeaders: readonly string[]): string | null {
  const fields = rawHeaders.filter((_, i) => i % 2 === 1 && rawHeaders[i - 1].toLowerCase() === 'authorization');
  if (fields.length !== 1) return null;
  return BEARER.exec(fields[0].replace(/^[ \t]+|[ \t]+$/g, ''))?.[1] ?? null;
}
