import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { INestApplication } from '@nestjs/common';
import { createTestCa, type IssuedCertificate, type TestCa } from '../../../test/support/test-ca';
import { createTestDatabase, eventually, type TestDatabase } from '../../../test/support/test-database';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';

/** Issue 20, "no TLS anywhere": the API serves HTTPS from files, follows their rotation, and can require client certificates. */
describe('HTTPS (IPAM_TLS_CERT_FILE, IPAM_TLS_KEY_FILE, IPAM_TLS_CLIENT_CA_FILE)', () => {
  let ca: TestCa;
  let otherCa: TestCa;
  let db: TestDatabase;
  const apps: INestApplication[] = [];

  const start = async (env: NodeJS.ProcessEnv): Promise<number> => {
    const app = await createApp(loadConfig({ DATABASE_URL: db.url, PORT: '0', IPAM_KUBERNETES_CONSUMER: 'off', ...env }), {
      logger: false,
    });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    return (app.getHttpServer().address() as AddressInfo).port;
  };
  const tlsEnv = (server: IssuedCertificate, clientCa?: string) => ({
    IPAM_TLS_CERT_FILE: server.certFile,
    IPAM_TLS_KEY_FILE: server.keyFile,
    ...(clientCa ? { IPAM_TLS_CLIENT_CA_FILE: clientCa } : {}),
  });
  /** GET over HTTPS on a new connection, trusting `caFile`, with a client certificate when given */
  const get = (port: number, path: string, caFile: string, client?: IssuedCertificate) =>
    new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const request = https.get(
        {
          host: '127.0.0.1',
          port,
          path,
          agent: false,
          ca: readFileSync(caFile),
          ...(client ? { cert: readFileSync(client.certFile), key: readFileSync(client.keyFile) } : {}),
        },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
        },
      );
      request.on('error', reject);
    });
  /** the common name of the certificate a new connection is served */
  const servedName = (port: number) =>
    new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: readFileSync(ca.caFile) }, () => {
        resolve(String(socket.getPeerCertificate().subject.CN));
        socket.end();
      });
      socket.on('error', reject);
    });

  beforeAll(async () => {
    ca = createTestCa('api');
    otherCa = createTestCa('other');
    db = await createTestDatabase('https');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
    ca?.close();
    otherCa?.close();
  });

  it('serves HTTPS with the configured certificate, trusted through the CA, and no plain HTTP', async () => {
    const port = await start(tlsEnv(ca.issue('api')));
    const res = await get(port, '/healthz', ca.caFile);
    expect(res.status).toBe(200);
    await expect(get(port, '/healthz', otherCa.caFile)).rejects.toThrow(/self-signed|unable to verify|certificate/);
    const plain = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
  });

  it("over HTTPS, tells browsers to stay on HTTPS (HSTS) and to fetch the page's resources over it", async () => {
    const port = await start(tlsEnv(ca.issue('api-headers')));
    for (const path of ['/docs', '/healthz']) {
      const { headers } = await get(port, path, ca.caFile);
      expect({ path, hsts: headers['strict-transport-security'], csp: headers['content-security-policy'] }).toEqual({
        path,
        hsts: 'max-age=31536000; includeSubDomains',
        csp: expect.stringMatching(/(^|;)upgrade-insecure-requests(;|$)/),
      });
    }
  });

  it('serves a rotated certificate to new connections within seconds, and keeps the old one when the new files do not load', async () => {
    const served = ca.issue('api-first');
    const port = await start(tlsEnv(served));
    expect(await servedName(port)).toBe('api-first');
    ca.replace(served, ca.issue('api-second'));
    expect(
      await eventually(
        () => servedName(port),
        (name) => name === 'api-second',
        10_000,
      ),
    ).toBe('api-second');
    // a certificate that does not match its key (a half-written rotation) changes nothing
    writeFileSync(served.certFile, readFileSync(ca.issue('api-mismatch').certFile));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await servedName(port)).toBe('api-second');
    expect((await get(port, '/healthz', ca.caFile)).status).toBe(200);
  });

  it('with a client CA, refuses a client without a certificate or with one of another CA, and serves one the CA signed', async () => {
    const port = await start(tlsEnv(ca.issue('api-mtls'), ca.caFile));
    await expect(get(port, '/healthz', ca.caFile)).rejects.toThrow(/certificate|socket hang up|ECONNRESET/);
    await expect(get(port, '/healthz', ca.caFile, otherCa.issue('stranger'))).rejects.toThrow(/certificate|socket hang up|ECONNRESET/);
    expect((await get(port, '/healthz', ca.caFile, ca.issue('cni'))).status).toBe(200);
  });

  it('refuses a certificate without its key, and a client CA without HTTPS', () => {
    expect(() => loadConfig({ IPAM_TLS_CERT_FILE: '/x.crt' })).toThrow('IPAM_TLS_CERT_FILE and IPAM_TLS_KEY_FILE go together');
    expect(() => loadConfig({ IPAM_TLS_CLIENT_CA_FILE: '/ca.crt' })).toThrow('IPAM_TLS_CLIENT_CA_FILE needs IPAM_TLS_CERT_FILE');
  });
});
