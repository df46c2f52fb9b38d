/** What stands in for a secret taken out of a URL or a line. */
export const REDACTED = '***';

/**
 * The user-info of a URL (`scheme://user:password@` or `scheme://token@`), up to the authority's
 * last `@` as WHATWG URLs read it. Stops at a comma, so each URL of a NATS server list is
 * redacted on its own, and at quotes, so that a JSON line stays JSON.
 */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>,]*(?:@[^\s/?#@"'<>,]*)*)@/gi;

/** Secret parameters of a libpq URL's query or of a `key=value` connection string, and NATS' `token=`. */
const SECRET_PARAM = /\b((?:ssl)?password|pass(?:wd)?|token|secret)=('(?:[^'\\]|\\.)*'|[^\s&;,"']*)/gi;

function redactUserInfo(_: string, scheme: string, userInfo: string): string {
  const colon = userInfo.indexOf(':');
  // with a password, the user name is kept (it says who connects); a lone user-info may be a token (NATS)
  return colon < 0 ? `${scheme}${REDACTED}@` : `${scheme}${userInfo.slice(0, colon)}:${REDACTED}@`;
}

/**
 * A text with every credential a URL or a connection string carries replaced by `***`: a single
 * URL, a comma-separated server list (`nats://u:p@h1,nats://u:p@h2`), a libpq multi-host URL
 * (`postgres://u:p@h1,h2/db?password=...`), a `host=h password=p` string, or a whole log line or
 * error message holding any of them. Everything else is left as it was.
 */
export function redactSecrets(text: string): string {
  // a user-info needs an `@`, a secret parameter an `=`: most text (a path, a message) has neither
  if (!text.includes('@') && !text.includes('=')) return text;
  return text.replace(USER_INFO, redactUserInfo).replace(SECRET_PARAM, (_, key: string) => `${key}=${REDACTED}`);
}

/** The one name to use where a configured URL (NATS_URL, DATABASE_URL, a proxy) is logged or shown. */
export const redactUrl = redactSecrets;
