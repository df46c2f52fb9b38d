import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { stringify } from 'yaml';
import { KubeConfigError, inClusterConnection, kubeconfigConnection, loadKubeConnection } from './kubeconfig';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n';
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('kubeconfig', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function writeConfig(
    name: string,
    cluster: Record<string, unknown>,
    user: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ): string {
    const path = join(dir, name);
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'ctx',
      contexts: [
        { name: 'other', context: { cluster: 'nowhere', user: 'nobody' } },
        { name: 'ctx', context: { cluster: 'c1', user: 'u1' } },
      ],
      clusters: [{ name: 'c1', cluster }],
      users: [{ name: 'u1', user }],
      ...extra,
    };
    writeFileSync(path, stringify(config));
    return path;
  }

  it('follows current-context to the server, a static token and insecure-skip-tls-verify', async () => {
    const path = writeConfig('config', { server: 'https://k8s.example:6443', 'insecure-skip-tls-verify': true }, { token: 'abc' });
    const connection = kubeconfigConnection(path);
    expect(connection.server).toBe('https://k8s.example:6443');
    expect(connection.insecureSkipTlsVerify).toBe(true);
    expect(connection.ca).toBeUndefined();
    expect(await connection.token!()).toBe('abc');
    expect(connection.source).toContain('context ctx');
  });

  it('re-reads a token-file (relative to the kubeconfig) on every call, since tokens rotate', async () => {
    writeFileSync(join(dir, 'token'), 'first\n');
    const connection = kubeconfigConnection(writeConfig('config', { server: 'https://k8s' }, { 'token-file': 'token' }));
    expect(await connection.token!()).toBe('first');
    writeFileSync(join(dir, 'token'), 'second\n');
    expect(await connection.token!()).toBe('second');
    expect(connection.insecureSkipTlsVerify).toBe(false);
  });

  it('decodes certificate-authority-data and client certificate and key data', () => {
    const connection = kubeconfigConnection(
      writeConfig(
        'config',
        { server: 'https://k8s', 'certificate-authority-data': base64(CA) },
        { 'client-certificate-data': base64(CERT), 'client-key-data': base64(KEY) },
      ),
    );
    expect(connection.ca?.toString()).toBe(CA);
    expect(connection.cert?.toString()).toBe(CERT);
    expect(connection.key?.toString()).toBe(KEY);
    expect(connection.token).toBeUndefined();
  });

  it('reads certificate files relative to the kubeconfig file', () => {
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki/ca.crt'), CA);
    writeFileSync(join(dir, 'pki/client.crt'), CERT);
    writeFileSync(join(dir, 'pki/client.key'), KEY);
    const connection = kubeconfigConnection(
      writeConfig(
        'config',
        { server: 'https://k8s', 'certificate-authority': 'pki/ca.crt' },
        { 'client-certificate': 'pki/client.crt', 'client-key': join(dir, 'pki/client.key') },
      ),
    );
    expect(connection.ca?.toString()).toBe(CA);
    expect(connection.cert?.toString()).toBe(CERT);
    expect(connection.key?.toString()).toBe(KEY);
  });

  it('merges a KUBECONFIG path list: the first file to name an entry wins', async () => {
    const first = join(dir, 'first');
    writeFileSync(first, stringify({ 'current-context': 'ctx', users: [{ name: 'u1', user: { token: 'from-first' } }] }));
    const second = writeConfig('second', { server: 'https://second' }, { token: 'from-second' }, { 'current-context': 'other' });
    const connection = kubeconfigConnection([first, second].join(delimiter));
    expect(connection.server).toBe('https://second');
    expect(await connection.token!()).toBe('from-first');
  });

  describe('proxies', () => {
    const PROXY = 'http://alice:p%40ss@proxy.corp:3128';

    it('reads proxy-url, keeping its credentials out of the source', () => {
      const connection = kubeconfigConnection(writeConfig('config', { server: 'https://k8s', 'proxy-url': PROXY }, {}));
      expect(connection.proxyUrl?.href).toBe('http://alice:p%40ss@proxy.corp:3128/');
      expect(connection.source).toMatch(/context ctx, via proxy http:\/\/proxy\.corp:3128$/);
      expect(connection.source).not.toMatch(/alice|p%40ss/);
    });

    it.each(['https://proxy.corp', 'socks5://proxy.corp:1080', 'socks5h://proxy.corp:1080'])('accepts %s', (proxyUrl) => {
      expect(kubeconfigConnection(writeConfig('config', { server: 'https://k8s', 'proxy-url': proxyUrl }, {})).proxyUrl?.href).toBe(
        new URL(proxyUrl).href,
      );
    });

    it.each([
      [
        'ftp://alice:hunter2@proxy.corp',
        /proxy-url of cluster "c1": unsupported proxy scheme "ftp", must be http, https, socks5 or socks5h/,
      ],
      ['socks4://alice:hunter2@proxy.corp', /unsupported proxy scheme "socks4"/],
      ['alice:hunter2@proxy.corp', /unsupported proxy scheme "alice"/],
      ['http://alice:hunter2@', /not a valid URL/],
    ])('rejects proxy-url %s without repeating it', (proxyUrl, message) => {
      const path = writeConfig('config', { server: 'https://k8s', 'proxy-url': proxyUrl }, {});
      expect(() => kubeconfigConnection(path)).toThrow(KubeConfigError);
      expect(() => kubeconfigConnection(path)).toThrow(message);
      expect(() => kubeconfigConnection(path)).not.toThrow(/hunter2/);
    });

    it('takes the proxy from the environment when the kubeconfig names none, and proxy-url over it', () => {
      const env = { HTTPS_PROXY: 'user:pw@env-proxy:8080', NO_PROXY: 'other.example' };
      const fromEnv = loadKubeConnection({ env: { ...env, KUBECONFIG: writeConfig('plain', { server: 'https://k8s' }, {}) } });
      expect(fromEnv.proxyUrl?.href).toBe('http://user:pw@env-proxy:8080/');
      expect(fromEnv.source).toMatch(/via proxy http:\/\/env-proxy:8080$/);
      const kubeconfig = writeConfig('proxied', { server: 'https://k8s', 'proxy-url': PROXY }, {});
      expect(loadKubeConnection({ env: { ...env, KUBECONFIG: kubeconfig } }).proxyUrl?.host).toBe('proxy.corp:3128');
    });

    it('bypasses the environment proxy for NO_PROXY hosts', () => {
      const kubeconfig = writeConfig('config', { server: 'https://k8s.corp:6443' }, {});
      const connection = loadKubeConnection({ env: { KUBECONFIG: kubeconfig, HTTPS_PROXY: 'http://env-proxy', NO_PROXY: '.corp' } });
      expect(connection.proxyUrl).toBeUndefined();
      expect(connection.source).not.toContain('via proxy');
    });

    it('rejects an environment proxy of an unsupported scheme, naming the variable', () => {
      const env = { KUBECONFIG: writeConfig('config', { server: 'https://k8s' }, {}), https_proxy: 'ftp://env-proxy' };
      expect(() => loadKubeConnection({ env })).toThrow(KubeConfigError);
      expect(() => loadKubeConnection({ env })).toThrow(/^https_proxy: unsupported proxy scheme "ftp"/);
    });
  });

  describe('credential plugins (EKS, GKE and AKS kubeconfigs)', () => {
    /** An exec plugin that counts its runs and prints an ExecCredential expiring `expiresInMs` from now. */
    function execPlugin(expiresInMs: number): string {
      const script = join(dir, 'plugin.sh');
      const expiry = new Date(Date.now() + expiresInMs).toISOString();
      writeFileSync(
        script,
        `#!/bin/sh\necho run >> "$(dirname "$0")/runs"\n` +
          `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",` +
          `"status":{"token":"exec-'"$CLUSTER_NAME"'","expirationTimestamp":"${expiry}"}}'\n`,
      );
      chmodSync(script, 0o755);
      return script;
    }
    const runs = () => readFileSync(join(dir, 'runs'), 'utf8').trim().split('\n').length;
    const execUser = (command: string) => ({
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command, env: [{ name: 'CLUSTER_NAME', value: 'prod' }] },
    });

    it('runs an exec plugin (relative to the kubeconfig) and keeps its token until it expires', async () => {
      execPlugin(3_600_000);
      const connection = kubeconfigConnection(writeConfig('config', { server: 'https://k8s' }, execUser('./plugin.sh')));
      expect(await connection.token!()).toBe('exec-prod');
      expect(await connection.token!()).toBe('exec-prod');
      expect(runs()).toBe(1);
    });

    it('runs the plugin again once its credential has expired', async () => {
      const connection = kubeconfigConnection(writeConfig('config', { server: 'https://k8s' }, execUser(execPlugin(-1000))));
      await connection.token!();
      await connection.token!();
      expect(runs()).toBe(2);
    });

    it('takes an auth-provider token (gcp access-token)', async () => {
      const authProvider = { name: 'gcp', config: { 'access-token': 'gcp-token', expiry: new Date(Date.now() + 3_600_000).toISOString() } };
      const connection = kubeconfigConnection(writeConfig('config', { server: 'https://k8s' }, { 'auth-provider': authProvider }));
      expect(await connection.token!()).toBe('gcp-token');
    });

    it('says clearly when the plugin fails', async () => {
      const connection = kubeconfigConnection(writeConfig('config', { server: 'https://k8s' }, execUser(join(dir, 'absent-plugin'))));
      await expect(connection.token!()).rejects.toThrow(KubeConfigError);
      await expect(connection.token!()).rejects.toThrow(/user "u1": the credential plugin failed/);
    });
  });

  it.each([
    ['a missing file', () => join(dir, 'absent'), /cannot read kubeconfig .*absent/],
    ['no current-context', () => writeConfig('config', { server: 'https://k8s' }, {}, { 'current-context': '' }), /no current-context/],
    [
      'an unknown context',
      () => writeConfig('config', { server: 'https://k8s' }, {}, { 'current-context': 'ghost' }),
      /context "ghost" not found/,
    ],
    ['a cluster without server', () => writeConfig('config', {}, { token: 't' }), /has no server/],
    ['a server that is not a URL', () => writeConfig('config', { server: 'https://k8s:99999' }, {}), /server of cluster "c1" is not a URL/],
    [
      'a certificate without key',
      () => writeConfig('config', { server: 'https://k8s' }, { 'client-certificate-data': base64(CERT) }),
      /needs a client key/,
    ],
    [
      'a missing CA file',
      () => writeConfig('config', { server: 'https://k8s', 'certificate-authority': 'nope.crt' }, {}),
      /certificate-authority/,
    ],
  ])('fails clearly on %s', (_case, makePath, message) => {
    const path = makePath();
    expect(() => kubeconfigConnection(path)).toThrow(KubeConfigError);
    expect(() => kubeconfigConnection(path)).toThrow(message);
  });

  describe('in cluster', () => {
    function serviceAccount(files: Record<string, string>): string {
      const account = join(dir, 'serviceaccount');
      mkdirSync(account);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(account, name), text);
      return account;
    }

    it('uses the service env vars, the CA and the rotating token of the service account', async () => {
      const account = serviceAccount({ token: 'sa-1', 'ca.crt': CA });
      const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      const connection = loadKubeConnection({ env, serviceAccountDir: account });
      expect(connection.server).toBe('https://10.96.0.1:443');
      expect(connection.ca?.toString()).toBe(CA);
      expect(connection.insecureSkipTlsVerify).toBe(false);
      expect(await connection.token!()).toBe('sa-1');
      writeFileSync(join(account, 'token'), 'sa-2');
      expect(await connection.token!()).toBe('sa-2');
    });

    it('brackets an IPv6 service host', () => {
      const account = serviceAccount({ token: 't' });
      expect(inClusterConnection({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, account).server).toBe(
        'https://[fd00::1]:443',
      );
    });

    it('reaches the API server through HTTPS_PROXY unless NO_PROXY lists it', () => {
      const account = serviceAccount({ token: 't' });
      const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', HTTPS_PROXY: 'http://proxy.corp:3128' };
      const connection = loadKubeConnection({ env, serviceAccountDir: account });
      expect(connection.proxyUrl?.href).toBe('http://proxy.corp:3128/');
      expect(connection.source).toBe(`in-cluster service account (${account}), via proxy http://proxy.corp:3128`);
      expect(loadKubeConnection({ env: { ...env, NO_PROXY: '10.96.0.0/12' }, serviceAccountDir: account }).proxyUrl).toBeUndefined();
    });

    it('prefers KUBECONFIG when both are available', () => {
      const account = serviceAccount({ token: 't' });
      const path = writeConfig('config', { server: 'https://from-kubeconfig' }, { token: 't' });
      const env = { KUBECONFIG: path, KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      expect(loadKubeConnection({ env, serviceAccountDir: account }).server).toBe('https://from-kubeconfig');
    });

    it('fails clearly without a token file, or without any configuration', () => {
      const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      expect(() => loadKubeConnection({ env, serviceAccountDir: join(dir, 'absent') })).toThrow(/no service-account token/);
      expect(() => loadKubeConnection({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1' } })).toThrow(/KUBERNETES_SERVICE_PORT/);
      expect(() => loadKubeConnection({ env: {} })).toThrow(/set KUBECONFIG, or run in a pod/);
    });
  });
});
