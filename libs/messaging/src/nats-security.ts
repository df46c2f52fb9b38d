import { readFileSync } from 'node:fs';
import { credsAuthenticator, type ConnectionOptions } from 'nats';
import { natsServers } from './nats-servers';

/** TLS and credentials of the NATS connection, read alike by the API and the watcher. */
export interface NatsSecurity {
  /** null: plain TCP; else TLS is required of every server (a `tls://` URL, or any of these files given) */
  tls: { caFile?: string; certFile?: string; keyFile?: string } | null;
  /** IPAM_NATS_CREDS_FILE: a NATS `.creds` file (user JWT and nkey seed), read at every (re)connect */
  credsFile: string | null;
}

const FILES = { caFile: 'IPAM_NATS_CA_FILE', certFile: 'IPAM_NATS_CERT_FILE', keyFile: 'IPAM_NATS_KEY_FILE' } as const;

/** A file named but unreadable is a start-up error, not a reconnect loop that never says why. */
function readable(variable: string, file: string): string {
  try {
    readFileSync(file);
  } catch (err) {
    throw new Error(`${variable} ${file} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  return file;
}

export function natsSecurity(env: NodeJS.ProcessEnv, natsUrl: string): NatsSecurity {
  const files: NonNullable<NatsSecurity['tls']> = {};
  for (const [key, variable] of Object.entries(FILES) as Array<[keyof typeof FILES, string]>) {
    if (env[variable]) files[key] = readable(variable, env[variable]);
  }
  if (!files.certFile !== !files.keyFile) throw new Error('IPAM_NATS_CERT_FILE and IPAM_NATS_KEY_FILE go together: set both or neither');
  const tlsUrl = natsServers(natsUrl).some((url) => /^tls:\/\//i.test(url));
  return {
    tls: tlsUrl || Object.keys(files).length ? files : null,
    credsFile: env.IPAM_NATS_CREDS_FILE ? readable('IPAM_NATS_CREDS_FILE', env.IPAM_NATS_CREDS_FILE) : null,
  };
}

/**
 * The servers, TLS and authenticator for nats.js's `connect`. With `tls` set the client refuses a
 * server that offers no TLS, so credentials never cross in clear. nats.js reads the TLS files at
 * each connect and the creds file at each authentication: a rotation takes effect at the next reconnect.
 */
export function natsConnectOptions(natsUrl: string, security: NatsSecurity): Pick<ConnectionOptions, 'servers' | 'tls' | 'authenticator'> {
  const { credsFile } = security;
  return {
    servers: natsServers(natsUrl),
    ...(security.tls ? { tls: security.tls } : {}),
    ...(credsFile ? { authenticator: credsAuthenticator(() => readFileSync(credsFile)) } : {}),
  };
}
