import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { freePort } from '../../../test/support/free-port';
import { startPrivatePostgres, type PrivatePostgres } from '../../../test/support/private-postgres';
import { connectPostgres } from './connect-postgres';
import type { ServerInfo } from './postgres-client';
import { postgresConfig } from './postgres-config';

/** What a URL connected to: the server's port, and whether the session is encrypted. */
async function landing(url: string): Promise<{ port: number; ssl: boolean; recovery: boolean }> {
  const client = await connectPostgres(url);
  try {
    const { rows } = await client.query<{ port: number; ssl: boolean; recovery: boolean }>(
      'select inet_server_port() as port, ssl, pg_is_in_recovery() as recovery from pg_stat_ssl where pid = pg_backend_pid()',
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

describe('libpq host lists: target_session_attrs against a real primary and standby', () => {
  let primary: PrivatePostgres;
  let standby: PrivatePostgres;
  let deadPort: number;
  beforeAll(async () => {
    primary = await startPrivatePostgres();
    standby = await primary.standby();
    deadPort = await freePort();
  });
  afterAll(async () => {
    await standby?.close();
    await primary?.close();
  });

  const hosts = (...ports: number[]) =>
    `postgres://postgres@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/postgres?sslmode=disable`;

  it('walks the hosts in order and keeps the first whose session matches', async () => {
    const list = hosts(deadPort, standby.port, primary.port);
    const expected: Array<[string, number]> = [
      ['any', standby.port],
      ['read-write', primary.port],
      ['primary', primary.port],
      ['read-only', standby.port],
      ['standby', standby.port],
      ['prefer-standby', standby.port],
    ];
    for (const [attrs, port] of expected) {
      expect([attrs, (await landing(`${list}&target_session_attrs=${attrs}`)).port]).toEqual([attrs, port]);
    }
    // prefer-standby takes any server when no standby answers
    expect((await landing(`${hosts(deadPort, primary.port)}&target_session_attrs=prefer-standby`)).port).toBe(primary.port);
  });

  it('names every host and why it was passed over when none matches, with a connection-failure code', async () => {
    const attempt = connectPostgres(`${hosts(deadPort, standby.port)}&target_session_attrs=read-write`);
    await expect(attempt).rejects.toMatchObject({ code: '08001' });
    await expect(attempt).rejects.toThrow(`127.0.0.1:${deadPort}: connect ECONNREFUSED`);
    await expect(attempt).rejects.toThrow(`127.0.0.1:${standby.port}: a standby (in recovery)`);
  });

  it('moves past a host that never answers after connect_timeout', async () => {
    const silent: Socket[] = [];
    const blackHole: Server = createServer((socket) => silent.push(socket)).listen(0, '127.0.0.1');
    await new Promise((resolve) => blackHole.once('listening', resolve));
    try {
      const { port } = blackHole.address() as { port: number };
      const started = Date.now();
      expect((await landing(`${hosts(port, primary.port)}&connect_timeout=2`)).port).toBe(primary.port);
      // libpq's per-host bound, not the whole walk's: the black hole was given its 2 s and no more
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    } finally {
      silent.forEach((socket) => socket.destroy());
      blackHole.close();
    }
  });

  it("sends a pool's new connections to the new primary after a failover, and says the server changed", async () => {
    // a pair of its own, so the shared one stays primary and standby for the other tests
    const oldPrimary = await startPrivatePostgres();
    const promoted = await oldPrimary.standby();
    const servers: ServerInfo[] = [];
    const lost: Error[] = [];
    const pool = new Pool({
      ...postgresConfig(`${hosts(oldPrimary.port, promoted.port)}&target_session_attrs=read-write`, {
        onServer: (server) => servers.push(server),
        onLost: (error) => lost.push(error),
      }),
      max: 2,
    });
    pool.on('error', () => undefined);
    try {
      await pool.query('create table t (n int)');
      expect((await pool.query('select inet_server_port() as port')).rows[0].port).toBe(oldPrimary.port);
      await oldPrimary.stop();
      await promoted.promote();
      // the idle connection may still be handed out before its loss is heard (the API retries
      // such a request); once it is gone, the pool's next connection walks the list again
      await pool.query('select 1').catch(() => undefined);
      const { rows } = await pool.query('insert into t values (1) returning inet_server_port() as port');
      expect(rows[0].port).toBe(promoted.port);
      expect(lost.length).toBeGreaterThan(0);
      expect(servers.at(-1)).toMatchObject({ address: { port: promoted.port }, inRecovery: false, readOnly: false });
      expect(new Set(servers.map((server) => server.identity)).size).toBe(2);
    } finally {
      await pool.end();
      await promoted.close();
      await oldPrimary.close();
    }
  });

  it('leaves a connection whose server refuses a write (25006) out of the pool', async () => {
    const lost: Error[] = [];
    // target any on a standby stands for a primary demoted under a pooled connection
    const pool = new Pool({ ...postgresConfig(hosts(standby.port), { onLost: (error) => lost.push(error) }), max: 1 });
    try {
      const first = (await pool.query('select pg_backend_pid() as pid')).rows[0].pid;
      await expect(pool.query('create table refused (n int)')).rejects.toMatchObject({ code: '25006' });
      expect(lost.map((error) => (error as { code?: string }).code)).toEqual(['25006']);
      expect((await pool.query('select pg_backend_pid() as pid')).rows[0].pid).not.toBe(first);
    } finally {
      await pool.end();
    }
  });
});

describe('libpq sslmode, sslrootcert, sslcert and sslkey against a server with ssl=on and a test CA', () => {
  let dir: string;
  let server: PrivatePostgres;
  let plainServer: PrivatePostgres;
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

  /** an EC key and a certificate signed by `ca` (self-signed when ca is undefined) */
  function certificate(name: string, subject: string, ca?: string, altNames?: string): void {
    openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`);
    if (!ca) {
      openssl('req', '-x509', '-new', '-key', `${name}.key`, '-subj', subject, '-days', '2', '-out', `${name}.crt`);
      return;
    }
    openssl('req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
    writeFileSync(file(`${name}.ext`), altNames ? `subjectAltName=${altNames}\n` : 'basicConstraints=CA:FALSE\n');
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.crt`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ssl-'));
    certificate('ca', '/CN=ipledger test CA');
    certificate('wrong-ca', '/CN=somebody else');
    // the server's certificate names localhost only: 127.0.0.1 is a name mismatch for verify-full
    certificate('server', '/CN=localhost', 'ca', 'DNS:localhost');
    certificate('client', '/CN=certuser', 'ca');
    server = await startPrivatePostgres({
      settings: { ssl: 'on', ssl_cert_file: '$DIR/server.crt', ssl_key_file: '$DIR/server.key', ssl_ca_file: '$DIR/ca.crt' },
      files: {
        'server.crt': readFileSync(file('server.crt'), 'utf8'),
        'server.key': readFileSync(file('server.key'), 'utf8'),
        'ca.crt': readFileSync(file('ca.crt'), 'utf8'),
      },
      // certuser proves itself with a client certificate over TLS, and nothing else
      hba: ['hostssl all certuser 127.0.0.1/32 cert', 'host all certuser 127.0.0.1/32 reject', 'hostnossl all tlsonly 127.0.0.1/32 reject'],
    });
    const admin = await connectPostgres(`${server.url('postgres')}?sslmode=disable`);
    await admin.query('create role certuser login; create role tlsonly login');
    await admin.end();
    plainServer = await startPrivatePostgres();
  });
  afterAll(async () => {
    await server?.close();
    await plainServer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (host: string, params: string, user = 'postgres') => `postgres://${user}@${host}:${server.port}/postgres?${params}`;

  it('verify-full passes with the right CA and the name the certificate holds', async () => {
    expect(await landing(url('localhost', `sslmode=verify-full&sslrootcert=${file('ca.crt')}`))).toMatchObject({ ssl: true });
  });

  it('verify-full fails with a wrong CA, and with a host name the certificate does not hold', async () => {
    await expect(landing(url('localhost', `sslmode=verify-full&sslrootcert=${file('wrong-ca.crt')}`))).rejects.toThrow(/certificate/);
    await expect(landing(url('127.0.0.1', `sslmode=verify-full&sslrootcert=${file('ca.crt')}`))).rejects.toThrow(
      /IP: 127.0.0.1 is not in the cert's list/,
    );
  });

  it('verify-ca checks the chain and not the name; require checks nothing unless given a root certificate', async () => {
    expect(await landing(url('127.0.0.1', `sslmode=verify-ca&sslrootcert=${file('ca.crt')}`))).toMatchObject({ ssl: true });
    await expect(landing(url('127.0.0.1', `sslmode=verify-ca&sslrootcert=${file('wrong-ca.crt')}`))).rejects.toThrow(/certificate/);
    expect(await landing(url('127.0.0.1', 'sslmode=require'))).toMatchObject({ ssl: true });
    await expect(landing(url('127.0.0.1', `sslmode=require&sslrootcert=${file('wrong-ca.crt')}`))).rejects.toThrow(/certificate/);
    await expect(landing(url('127.0.0.1', `sslmode=verify-ca&sslrootcert=${file('missing.crt')}`))).rejects.toThrow(/no such file/);
  });

  // pg-pool listens on a client whose connect failed before it answers the query: a pooled handle
  // with no client behind it would throw there, and the query would never be answered
  it("fails a pool's connect, not the process, when no host could even be tried (a root certificate missing)", async () => {
    const pool = new Pool({ ...postgresConfig(url('127.0.0.1', `sslmode=verify-ca&sslrootcert=${file('missing.crt')}`)), max: 1 });
    try {
      await expect(pool.query('select 1')).rejects.toThrow(/no such file/);
    } finally {
      await pool.end();
    }
  }, 10_000);

  it('prefer (the default) encrypts when the server can and falls back when it cannot; allow tries plain first; disable never encrypts', async () => {
    expect(await landing(url('127.0.0.1', ''))).toMatchObject({ ssl: true });
    expect(await landing(`${plainServer.url('postgres')}?sslmode=prefer`)).toMatchObject({ ssl: false });
    expect(await landing(url('127.0.0.1', 'sslmode=allow'))).toMatchObject({ ssl: false });
    // allow moves to TLS when pg_hba.conf refuses the plain connection
    expect(await landing(url('127.0.0.1', 'sslmode=allow', 'tlsonly'))).toMatchObject({ ssl: true });
    expect(await landing(url('127.0.0.1', 'sslmode=disable'))).toMatchObject({ ssl: false });
    await expect(landing(url('127.0.0.1', 'sslmode=disable', 'tlsonly'))).rejects.toMatchObject({ code: '28000' });
    await expect(landing(`${plainServer.url('postgres')}?sslmode=require`)).rejects.toThrow('The server does not support SSL connections');
  });

  it('sslcert and sslkey authenticate a client certificate', async () => {
    const withCert = `sslmode=verify-full&sslrootcert=${file('ca.crt')}&sslcert=${file('client.crt')}&sslkey=${file('client.key')}`;
    expect(await landing(url('localhost', withCert, 'certuser'))).toMatchObject({ ssl: true });
    await expect(landing(url('localhost', `sslmode=verify-full&sslrootcert=${file('ca.crt')}`, 'certuser'))).rejects.toThrow(
      /certificate|certuser/,
    );
  });
});
