import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import type { DatabaseError } from 'pg';
import type { HostAddress, SslSettings } from './connection-string';
import { NoMatchingServerError } from './no-matching-server.error';

/** One way to connect to a host: pg.Client's `ssl` option, built (reading the files) when tried. */
export interface SslChoice {
  (): false | ConnectionOptions;
  /** the next choice is tried when this one fails so (libpq's allow and prefer) */
  fallsBackOn?: (error: Error) => boolean;
}

/** 28000: pg_hba.conf has no entry for this encryption (hostssl / hostnossl). */
const refusedByHba = (error: Error) => (error as DatabaseError).code === '28000';

/** The TLS choices of one host, in libpq's order for its sslmode. */
export function sslChoices(ssl: SslSettings, address: HostAddress): SslChoice[] {
  const plain: SslChoice = () => false;
  const unverified: SslChoice = () => ({ rejectUnauthorized: false, ...clientCertificate(ssl) });
  switch (ssl.mode) {
    case 'disable':
      return [plain];
    case 'allow':
      return [Object.assign(() => false as const, { fallsBackOn: refusedByHba }), unverified];
    case 'prefer':
      return [
        Object.assign(() => unverified() as ConnectionOptions, {
          fallsBackOn: (error: Error) => error.message === 'The server does not support SSL connections' || refusedByHba(error),
        }),
        plain,
      ];
    case 'require':
      // libpq: with a root certificate present, require verifies the chain as verify-ca does
      return [() => (rootCertificatePath(ssl) ? verified(ssl, address, false) : unverified())];
    case 'verify-ca':
      return [() => verified(ssl, address, false)];
    case 'verify-full':
      return [() => verified(ssl, address, true)];
  }
}

function verified(ssl: SslSettings, address: HostAddress, checkHost: boolean): ConnectionOptions {
  const rootCert = rootCertificatePath(ssl);
  if (!rootCert)
    throw new NoMatchingServerError(
      `root certificate file "${ssl.rootCert ?? defaultFile('root.crt')}" does not exist: name one with sslrootcert, ` +
        `use sslrootcert=system for the system's trusted roots, or an sslmode that does not verify the server`,
      '08001',
    );
  return {
    rejectUnauthorized: true,
    ...(rootCert === 'system' ? {} : { ca: readFileSync(rootCert, 'utf8') }),
    // verify-ca trusts any name the CA signed; verify-full the host as the URL spells it (IP SANs included)
    checkServerIdentity: checkHost ? (_name, cert) => checkServerIdentity(address.host, cert) : () => undefined,
    ...clientCertificate(ssl),
  };
}

/** sslrootcert, else ~/.postgresql/root.crt when it exists (libpq's default); undefined: none. */
function rootCertificatePath(ssl: SslSettings): string | undefined {
  if (ssl.rootCert !== undefined) return ssl.rootCert;
  const file = defaultFile('root.crt');
  return existsSync(file) ? file : undefined;
}

/** sslcert and sslkey, else ~/.postgresql/postgresql.crt and .key when they exist, as libpq sends them. */
function clientCertificate(ssl: SslSettings): Pick<ConnectionOptions, 'cert' | 'key'> {
  const cert = ssl.cert ?? defaultFile('postgresql.crt');
  const key = ssl.key ?? defaultFile('postgresql.key');
  if (ssl.cert === undefined && !existsSync(cert)) return {};
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

const defaultFile = (name: string) => join(homedir(), '.postgresql', name);
