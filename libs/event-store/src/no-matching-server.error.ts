import type { DatabaseError } from 'pg';
import { describeHost, type ConnectionSettings, type HostAddress } from './connection-string';

/** A failure to find a matching server among the URL's hosts: a connection failure (08001), so answered 503. */
export class NoMatchingServerError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface HostFailure {
  address: HostAddress;
  error: Error;
}

/**
 * The error of a connect that found no server: the one failure as it was when there was one host
 * (so `database does not exist` keeps its 3D000), else every host's reason, in order.
 */
export function noMatchingServer(settings: ConnectionSettings, failures: HostFailure[], reason?: string): Error {
  if (!reason && failures.length === 1) return failures[0].error;
  const codes = new Set(failures.map(({ error }) => (error as DatabaseError).code));
  const code = codes.size === 1 && [...codes][0] ? [...codes][0]! : '08001';
  const tried = failures.map(({ address, error }) => `${describeHost(address)}: ${error.message}`).join('; ');
  return new NoMatchingServerError(
    `no server of ${settings.hosts.map(describeHost).join(',')} is ${settings.targetSessionAttrs}${reason ? ` (${reason})` : ''}: ${tried || 'none tried'}`,
    code,
    { cause: failures.at(-1)?.error },
  );
}
