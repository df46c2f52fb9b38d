import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nkeys } from 'nats';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A NATS JWT (v2) as nsc writes one: ed25519-nkey, signed by the issuer's key. */
function jwt(issuer: ReturnType<typeof nkeys.createOperator>, subject: string, name: string, nats: Record<string, unknown>): string {
  const iss = issuer.getPublicKey();
  const body = `${b64({ typ: 'JWT', alg: 'ed25519-nkey' })}.${b64({ jti: `${name}-${Date.now()}`, iat: Math.floor(Date.now() / 1000), iss, name, sub: subject, nats: { ...nats, version: 2 } })}`;
  return `${body}.${Buffer.from(issuer.sign(Buffer.from(body))).toString('base64url')}`;
}

export interface NatsOperator {
  /** nats-server configuration (operator mode, accounts preloaded): add it to the server's config file */
  serverConfig: string;
  /** a `.creds` file of a user of the account, as `nsc generate creds` writes it */
  credsFile: string;
}

/**
 * An operator, an account with JetStream, and a user of it, made with nkeys for one test: what
 * `nsc` would make for a cluster in operator (decentralised JWT) mode.
 */
export function createNatsOperator(dir: string): NatsOperator {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  // JetStream needs a system account in operator mode
  const system = nkeys.createAccount();
  const user = nkeys.createUser();
  const operatorJwt = jwt(operator, operator.getPublicKey(), 'test-operator', { type: 'operator' });
  const unlimited = { subs: -1, conn: -1, leaf: -1, imports: -1, exports: -1, data: -1, payload: -1, wildcards: true };
  const jetstream = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
  const accountJwt = jwt(operator, account.getPublicKey(), 'ipledger', { type: 'account', limits: { ...unlimited, ...jetstream } });
  const systemJwt = jwt(operator, system.getPublicKey(), 'SYS', { type: 'account', limits: unlimited });
  const userJwt = jwt(account, user.getPublicKey(), 'ipledger-api', { type: 'user', pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
  const credsFile = join(dir, 'ipledger.creds');
  writeFileSync(
    credsFile,
    `-----BEGIN NATS USER JWT-----\n${userJwt}\n------END NATS USER JWT------\n\n` +
      `-----BEGIN USER NKEY SEED-----\n${Buffer.from(user.getSeed()).toString()}\n------END USER NKEY SEED------\n`,
  );
  return {
    serverConfig:
      `operator: ${operatorJwt}\nsystem_account: ${system.getPublicKey()}\nresolver: MEMORY\n` +
      `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }\n`,
    credsFile,
  };
}
