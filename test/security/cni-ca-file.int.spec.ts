import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '../../apps/api/src/config';
import { createApp } from '../../apps/api/src/create-app';
import { cniCall, PLUGIN_BUILD } from '../support/cni-runner';
import { createTestCa, type IssuedCertificate, type TestCa } from '../support/test-ca';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * Issue 20, "the plugin has no CA option": the built ipledger-ipam, run as a runtime runs it,
 * against the real API serving HTTPS with a certificate of a CA made here. The plugin trusts that
 * CA only through `ipam.caFile`; against an API that requires client certificates it presents
 * `ipam.certFile` and `ipam.keyFile`.
 */
describe('ipledger-ipam over HTTPS (ipam.caFile, ipam.certFile, ipam.keyFile)', () => {
  let ca: TestCa;
  let db: TestDatabase;
  let client: IssuedCertificate;
  let url: string;
  const apps: INestApplication[] = [];
  let seq = 0;

  const startApi = async (clientCa?: string): Promise<string> => {
    const server = ca.issue('ipledger-api');
    const env = {
      DATABASE_URL: db.url,
      PORT: '0',
      IPAM_KUBERNETES_CONSUMER: 'off',
      IPAM_TLS_CERT_FILE: server.certFile,
      IPAM_TLS_KEY_FILE: server.keyFile,
      ...(clientCa ? { IPAM_TLS_CLIENT_CA_FILE: clientCa } : {}),
    };
    const app = await createApp(loadConfig(env), { logger: false });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    return `https://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  };
  const add = (url: string, ipam: Record<string, unknown> = {}) => {
    const id = `tls${process.pid}x${++seq}`;
    return cniCall(
      PLUGIN_BUILD,
      {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: id,
        CNI_NETNS: `/var/run/netns/${id}`,
        CNI_IFNAME: 'eth0',
        CNI_PATH: '/opt/cni/bin',
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-${id}`,
      },
      {
        cniVersion: '1.0.0',
        name: 'pods',
        ipam: { type: 'ipledger-ipam', url, node: 'node-1', pools: ['tls'], timeoutSeconds: 5, ...ipam },
      },
    );
  };

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: join(__dirname, '../..'), stdio: 'inherit' });
    ca = createTestCa('cni');
    client = ca.issue('cni-node-1');
    db = await createTestDatabase('cni_ca_file');
    url = await startApi();
    // the pool, over HTTPS too
    const status = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ name: 'tls', cidr: '10.74.0.0/24' });
      const request = https.request(
        `${url}/v1/pools`,
        { method: 'POST', ca: readFileSync(ca.caFile), headers: { 'content-type': 'application/json' } },
        (res) => resolve(res.resume().statusCode ?? 0),
      );
      request.on('error', reject);
      request.end(body);
    });
    expect(status).toBe(201);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
    ca?.close();
  });

  it('allocates over HTTPS with ipam.caFile, and refuses the unknown CA without it with a clear CNI error', async () => {
    const trusted = await add(url, { caFile: ca.caFile });
    expect(trusted.status).toBe(0);
    expect(trusted.json.ips).toEqual([{ address: expect.stringMatching(/^10\.74\.0\.\d+\/24$/) }]);

    const untrusted = await add(url);
    expect(untrusted.status).toBe(1);
    expect(untrusted.json).toMatchObject({ cniVersion: '1.0.0', code: 102 });
    expect(untrusted.json.msg).toMatch(/^TLS with the ipledger API at https:\/\/127\.0\.0\.1:\d+ failed: .*set ipam\.caFile/);
  });

  it('presents ipam.certFile and ipam.keyFile to an API that requires client certificates', async () => {
    const mtls = await startApi(ca.caFile);
    const withCert = await add(mtls, { caFile: ca.caFile, certFile: client.certFile, keyFile: client.keyFile });
    expect(withCert.status).toBe(0);
    expect(withCert.json.ips).toHaveLength(1);
    const without = await add(mtls, { caFile: ca.caFile });
    expect(without.status).toBe(1);
    expect(without.json.code).toBe(102);
    expect(without.json.msg).toContain('refused our certificate');
  });

  it('checks the certificate against ipam.tlsServerName when the url names an address (a cluster IP)', async () => {
    // the test CA's certificates carry IP:127.0.0.1 and DNS:localhost
    const named = await add(url, { caFile: ca.caFile, tlsServerName: 'localhost' });
    expect(named.status).toBe(0);
    expect(named.json.ips).toHaveLength(1);
    const otherName = await add(url, { caFile: ca.caFile, tlsServerName: 'ipledger-api.ipledger.svc' });
    expect(otherName.status).toBe(1);
    expect(otherName.json.code).toBe(102);
    expect(otherName.json.msg).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID.*ipam\.tlsServerName ipledger-api\.ipledger\.svc/);
    expect((await add(url, { caFile: ca.caFile, tlsServerName: 'not a name' })).json).toMatchObject({
      code: 7,
      msg: expect.stringContaining('ipam.tlsServerName must be a DNS name'),
    });
  });

  it('refuses TLS files with an http url, a certificate without its key, and an unreadable CA file (code 7)', async () => {
    const closed = 'https://127.0.0.1:1';
    expect((await add('http://127.0.0.1:1', { caFile: ca.caFile })).json).toMatchObject({
      code: 7,
      msg: expect.stringContaining('needs an https'),
    });
    expect((await add(closed, { certFile: client.certFile })).json).toMatchObject({ code: 7, msg: expect.stringContaining('go together') });
    expect((await add(closed, { caFile: '/nonexistent/ca.crt' })).json).toMatchObject({
      code: 7,
      msg: expect.stringContaining('ipam.caFile'),
    });
  });
});
