import { describeHost, parseConnectionString } from '@ipledger/event-store';
import { redactSecrets } from '@ipledger/runtime';
import { isDatabaseUnavailable } from './infrastructure/database-unavailable';
import { EXIT_CODES, StartFailure } from './start-failure';

/** What went wrong, in a few words, for the codes a newcomer meets; else the driver's own message. */
function connectionReason(err: Error & { code?: string; hostname?: string }): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return err.hostname ? `the host name ${err.hostname} does not resolve` : 'the host name does not resolve';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to the host';
    default:
      return redactSecrets(err.message);
  }
}

/** Failures of the login, not of the network: the server runs, the URL's user, password or database is wrong. */
const LOGIN_CODES = new Set(['28P01', '28000', '3D000']);
const NETWORK_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * A connection that failed at start (the server down, a wrong host or port, a refused login) as
 * one line naming where it tried (host:port, never the password) and what to check; null for any
 * other error, which is a bug or a problem of the schema and keeps its stack.
 */
export function databaseFailure(err: unknown, databaseUrl: string, variable: string): StartFailure | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  const login = typeof code === 'string' && LOGIN_CODES.has(code);
  if (!login && !isDatabaseUnavailable(err) && !(typeof code === 'string' && NETWORK_CODES.has(code))) return null;
  let where: string;
  try {
    const settings = parseConnectionString(databaseUrl);
    where = `${settings.hosts.map(describeHost).join(',')}, database ${settings.database}, user ${settings.user}`;
  } catch {
    where = 'the URL given';
  }
  const check = login ? `check the user, password and database in ${variable}` : `check ${variable} and that PostgreSQL runs there`;
  return new StartFailure(
    `cannot connect to PostgreSQL at ${where} (${variable}): ${connectionReason(err)}; ${check}`,
    EXIT_CODES.database,
    {
      cause: err,
    },
  );
}

/** Which setting named the database the API or the CLI connects to first: the schema owner's when given. */
export function databaseVariable(env: NodeJS.ProcessEnv): string {
  if (env.IPAM_MIGRATIONS_DATABASE_URL) return 'IPAM_MIGRATIONS_DATABASE_URL';
  return env.DATABASE_URL ? 'DATABASE_URL' : 'the embedded PostgreSQL (DATABASE_URL unset)';
}
