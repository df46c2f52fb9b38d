// The host walk on another minor of pg than the pinned one (the devDependency pg-other-minor, an npm
// alias): it uses only pg's documented API, so it must not depend on the pin. Hoisted above the
// imports, this hands every `require('pg')` below (connect-postgres and its parts, pg-pool's own)
// that other pg.
jest.mock('pg', () => jest.requireActual('pg-other-minor'));

import { Pool } from 'pg';
import { freePort } from '../../../test/support/free-port';
import { startPrivatePostgres, type PrivatePostgres } from '../../../test/support/private-postgres';
import { connectPostgres } from './connect-postgres';
import type { ServerInfo } from './postgres-client';
import { postgresConfig } from './postgres-config';

const otherPg = jest.requireActual('pg-other-minor');
const pinnedPg = jest.requireActual('pg');
const versionOf = (name: string) => jest.requireActual<{ version: string }>(`${name}/package.json`).version;

describe(`the host walk on pg ${versionOf('pg-other-minor')} (pinned: ${versionOf('pg')})`, () => {
  let primary: PrivatePostgres;
  let standby: PrivatePostgres;
  let url: string;
  beforeAll(async () => {
    primary = await startPrivatePostgres();
    standby = await primary.standby();
    // a host that refuses, a standby, then the primary; neither server offers TLS
    const hosts = [await freePort(), standby.port, primary.port].map((port) => `127.0.0.1:${port}`).join(',');
    url = `postgres://postgres@${hosts}/postgres?target_session_attrs=read-write&sslmode=prefer`;
  });
  afterAll(async () => {
    await standby?.close();
    await primary?.close();
  });

  const SESSION = 'select inet_server_port() as port, ssl, pg_backend_pid() as pid from pg_stat_ssl where pid = pg_backend_pid()';

  it('is not the pinned pg', () => {
    expect(versionOf('pg-other-minor')).not.toBe(versionOf('pg'));
  });

  it('passes over the refusing host and the standby, falls back to plain, and keeps the primary', async () => {
    const servers: ServerInfo[] = [];
    const client = await connectPostgres(url, { onServer: (server) => servers.push(server) });
    try {
      expect(client).toBeInstanceOf(otherPg.Client);
      expect(client).not.toBeInstanceOf(pinnedPg.Client);
      expect((await client.query(SESSION)).rows[0]).toMatchObject({ port: primary.port, ssl: false });
      expect(servers).toMatchObject([{ address: { port: primary.port }, inRecovery: false, readOnly: false }]);
    } finally {
      await client.end();
    }
  });

  it("does so for each of a pool's connections, and the pool reuses what it kept", async () => {
    const pool = new Pool({ ...postgresConfig(url), max: 1 });
    try {
      const first = (await pool.query(SESSION)).rows[0];
      expect(first).toMatchObject({ port: primary.port, ssl: false });
      // released whole (pg-pool judges a released client by pg's own state): the same session again
      expect((await pool.query(SESSION)).rows[0].pid).toBe(first.pid);
      const client = await pool.connect();
      try {
        expect(client).toBeInstanceOf(otherPg.Client);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
