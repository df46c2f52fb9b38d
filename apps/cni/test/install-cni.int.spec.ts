import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { installerSettings } from '../src/install/installer-settings';
import { renderConflist } from '../src/install/render-conflist';

const ROOT = join(__dirname, '../../..');
const INSTALLER = join(ROOT, 'dist/cni/install-cni.js');
const PLUGIN = join(ROOT, 'dist/cni/ipledger-ipam');

const TEMPLATE = {
  cniVersion: '1.0.0',
  name: 'ipledger',
  plugins: [
    {
      type: 'bridge',
      bridge: 'cni0',
      isGateway: true,
      ipam: {
        type: 'ipledger-ipam',
        url: '__IPLEDGER_API_URL__',
        tokenFile: '__IPLEDGER_TOKEN_FILE__',
        node: '__KUBERNETES_NODE_NAME__',
        matchLabel: 'pool-group',
        routes: [{ dst: '0.0.0.0/0' }],
      },
    },
    { type: 'portmap', capabilities: { portMappings: true } },
  ],
};

/**
 * The node installer (dist/cni/install-cni.js, what the DaemonSet runs) as a process, against temp
 * folders standing in for the host's /opt/cni/bin and /etc/cni/net.d, with the variables Kubernetes
 * gives its container: spec.nodeName through the downward API and the Service ipledger-api's.
 */
describe('install-cni, the node installer', () => {
  let root: string;
  let binDir: string;
  let netDir: string;
  let templateFile: string;
  let tokenFile: string;
  const running: ChildProcess[] = [];

  beforeAll(() => {
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: ROOT, stdio: 'inherit' });
  }, 120_000);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ipledger-install-'));
    binDir = join(root, 'host/opt/cni/bin');
    netDir = join(root, 'host/etc/cni/net.d');
    mkdirSync(join(root, 'config'));
    mkdirSync(join(root, 'secret'));
    mkdirSync(join(root, 'tmp'));
    templateFile = join(root, 'config/bridge.conflist.template');
    tokenFile = join(root, 'secret/token');
    writeFileSync(templateFile, JSON.stringify(TEMPLATE, null, 2));
    writeFileSync(tokenFile, 's3cret-token\n');
  });

  afterEach(async () => {
    for (const child of running.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    rmSync(root, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string | undefined> = {}) => ({
    PATH: process.env.PATH,
    TMPDIR: join(root, 'tmp'),
    IPAM_NODE_NAME: 'worker-7.k8s.internal',
    IPLEDGER_API_SERVICE_HOST: '10.96.0.50',
    IPLEDGER_API_SERVICE_PORT: '8080',
    IPAM_CNI_BIN_DIR: binDir,
    IPAM_CNI_NET_DIR: netDir,
    IPAM_CNI_TEMPLATE: templateFile,
    IPAM_CNI_TOKEN: tokenFile,
    IPAM_CNI_INTERVAL_SECONDS: '1',
    ...extra,
  });

  function start(extra: Record<string, string | undefined> = {}): { child: ChildProcess; output: () => string } {
    const child = spawn(process.execPath, [INSTALLER], { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
    running.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { child, output: () => output };
  }

  async function until(what: string, condition: () => boolean, output: () => string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; installer said:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const conflistPath = () => join(netDir, '10-ipledger.conflist');
  const readyFile = () => join(root, 'tmp/ipledger-cni-installed');
  const conflist = () => JSON.parse(readFileSync(conflistPath(), 'utf8'));
  const mode = (file: string) => statSync(file).mode & 0o777;

  it("installs the plugin and the token, and renders the conflist with the node's Kubernetes name, the API and the token file", async () => {
    const { output } = start();
    await until('ready', () => existsSync(readyFile()), output);
    expect(readFileSync(join(binDir, 'ipledger-ipam')).equals(readFileSync(PLUGIN))).toBe(true);
    expect(mode(join(binDir, 'ipledger-ipam'))).toBe(0o755);
    expect(readFileSync(join(netDir, 'ipledger/token'), 'utf8')).toBe('s3cret-token\n');
    expect(mode(join(netDir, 'ipledger/token'))).toBe(0o600);
    expect(mode(join(netDir, 'ipledger'))).toBe(0o700);
    const { plugins } = conflist();
    expect(plugins[0].ipam).toEqual({
      ...TEMPLATE.plugins[0].ipam,
      node: 'worker-7.k8s.internal',
      url: 'http://10.96.0.50:8080',
      // the path the plugin reads on the host, not the container's mount
      tokenFile: '/etc/cni/net.d/ipledger/token',
    });
    expect(plugins[1]).toEqual(TEMPLATE.plugins[1]);
    expect(mode(conflistPath())).toBe(0o644);
    // nothing half-written left next to the targets
    expect(readdirSync(netDir).sort()).toEqual(['10-ipledger.conflist', 'ipledger']);
    expect(readdirSync(binDir)).toEqual(['ipledger-ipam']);
  });

  it("over HTTPS: installs the API's CA beside the token, and names it and the certificate's name in the conflist", async () => {
    const caFile = join(root, 'secret/ca.crt');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n');
    const { output } = start({
      IPAM_CNI_API_SCHEME: 'https',
      IPAM_CNI_CA_FILE: caFile,
      IPAM_CNI_TLS_SERVER_NAME: 'ipledger-api.ipledger.svc',
    });
    await until('ready', () => existsSync(readyFile()), output);
    expect(readFileSync(join(netDir, 'ipledger/ca.crt'), 'utf8')).toBe(readFileSync(caFile, 'utf8'));
    expect(mode(join(netDir, 'ipledger/ca.crt'))).toBe(0o644);
    expect(conflist().plugins[0].ipam).toEqual({
      ...TEMPLATE.plugins[0].ipam,
      node: 'worker-7.k8s.internal',
      url: 'https://10.96.0.50:8080',
      tokenFile: '/etc/cni/net.d/ipledger/token',
      // the path the plugin reads on the host, and the name instead of the cluster IP
      caFile: '/etc/cni/net.d/ipledger/ca.crt',
      tlsServerName: 'ipledger-api.ipledger.svc',
    });
    expect(readdirSync(join(netDir, 'ipledger')).sort()).toEqual(['ca.crt', 'token']);
  });

  it('with IPAM_CNI_CLUSTER, names the cluster in the conflist (a fleet member: /v1/clusters/<cluster>/...)', async () => {
    const { output } = start({ IPAM_CNI_CLUSTER: 'east' });
    await until('ready', () => existsSync(readyFile()), output);
    expect(conflist().plugins[0].ipam).toMatchObject({ type: 'ipledger-ipam', node: 'worker-7.k8s.internal', cluster: 'east' });
  });

  it("with IPAM_CNI_MATCH_LABEL, the shipped bridge template's conflist asks for matchLabel", async () => {
    const shipped = parseAllDocuments(readFileSync(join(ROOT, 'deploy/cni-daemonset.yaml'), 'utf8'))
      .map((doc) => doc.toJS())
      .find((doc) => doc.kind === 'ConfigMap').data['bridge.conflist.template'];
    writeFileSync(templateFile, shipped);
    const { output } = start({ IPAM_CNI_MATCH_LABEL: 'pool-group' });
    await until('ready', () => existsSync(readyFile()), output);
    expect(conflist().plugins[0].ipam).toMatchObject({ type: 'ipledger-ipam', node: 'worker-7.k8s.internal', matchLabel: 'pool-group' });
  });

  it('replaces a conflist by renaming over it: a reader of the old file keeps reading all of the old one', async () => {
    mkdirSync(netDir, { recursive: true });
    const old = JSON.stringify({ ...TEMPLATE, name: 'old-network' });
    writeFileSync(conflistPath(), old);
    const before = statSync(conflistPath()).ino;
    const reader = openSync(conflistPath(), 'r');
    try {
      const { output } = start();
      await until('ready', () => existsSync(readyFile()), output);
      expect(conflist().name).toBe('ipledger');
      expect(statSync(conflistPath()).ino).not.toBe(before);
      const buffer = Buffer.alloc(old.length + 100);
      expect(buffer.subarray(0, readSync(reader, buffer, 0, buffer.length, 0)).toString()).toBe(old);
    } finally {
      closeSync(reader);
    }
  });

  it('follows an edited template and a rotated token on its next round, and leaves unchanged files alone', async () => {
    const { output } = start();
    await until('ready', () => existsSync(readyFile()), output);
    const plugin = statSync(join(binDir, 'ipledger-ipam')).ino;
    const edited = structuredClone(TEMPLATE) as any;
    edited.plugins[0].ipam.routes = [{ dst: '10.0.0.0/8' }];
    writeFileSync(templateFile, JSON.stringify(edited));
    writeFileSync(tokenFile, 'rotated\n');
    await until('the conflist follows the template', () => conflist().plugins[0].ipam.routes[0].dst === '10.0.0.0/8', output);
    await until('the token follows', () => readFileSync(join(netDir, 'ipledger/token'), 'utf8') === 'rotated\n', output);
    expect(statSync(join(binDir, 'ipledger-ipam')).ino).toBe(plugin);
  });

  it('follows a projected ServiceAccount token as kubelet rotates it (a new folder swapped in under ..data)', async () => {
    // kubelet's layout of a projected volume: token -> ..data/token, ..data -> the current timestamped folder
    const volume = join(root, 'projected');
    const version = (name: string, token: string) => {
      mkdirSync(join(volume, name), { recursive: true });
      writeFileSync(join(volume, name, 'token'), token);
      symlinkSync(name, join(volume, '..data_tmp'));
      renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
    };
    version('..2026_01_01_00_00_00.1', 'eyJhbGciOiJSUzI1NiJ9.first.sig');
    symlinkSync('..data/token', join(volume, 'token'));
    const { output } = start({ IPAM_CNI_TOKEN: join(volume, 'token') });
    const hostToken = () => readFileSync(join(netDir, 'ipledger/token'), 'utf8');
    await until('ready', () => existsSync(readyFile()), output);
    expect(hostToken()).toBe('eyJhbGciOiJSUzI1NiJ9.first.sig');
    version('..2026_01_01_00_48_00.2', 'eyJhbGciOiJSUzI1NiJ9.renewed.sig');
    rmSync(join(volume, '..2026_01_01_00_00_00.1'), { recursive: true });
    await until('the renewed token is on the host', () => hostToken() === 'eyJhbGciOiJSUzI1NiJ9.renewed.sig', output);
    expect(mode(join(netDir, 'ipledger/token'))).toBe(0o600);
  });

  it('leaves the node as it is when stopped (SIGTERM): the next pod of a rolling update takes over, pods keep starting', async () => {
    const { child, output } = start();
    await until('ready', () => existsSync(readyFile()), output);
    const written = readFileSync(conflistPath(), 'utf8');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(existsSync(readyFile())).toBe(false);
    expect(readFileSync(conflistPath(), 'utf8')).toBe(written);
    expect(existsSync(join(binDir, 'ipledger-ipam'))).toBe(true);
    expect(existsSync(join(netDir, 'ipledger/token'))).toBe(true);
  });

  it('IPAM_CNI_UNINSTALL=true removes the conflist it writes, the token folder and the plugin, and stays up, ready', async () => {
    const installed = start();
    await until('installed', () => existsSync(readyFile()), installed.output);
    installed.child.kill('SIGTERM');
    await once(installed.child, 'exit');
    // another file of the operator's in the same folders stays
    writeFileSync(join(netDir, '20-other.conflist'), '{}');
    const { child, output } = start({ IPAM_CNI_UNINSTALL: 'true' });
    // ready, then its log line: a loaded machine may read the output between the two
    await until('uninstalled', () => existsSync(readyFile()) && output().includes('uninstalled from this node'), output);
    expect(readdirSync(netDir)).toEqual(['20-other.conflist']);
    expect(readdirSync(binDir)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);
    expect(readdirSync(netDir)).toEqual(['20-other.conflist']);
  });

  it('uninstalling leaves a conflist someone else has put in its place, and says so', async () => {
    mkdirSync(netDir, { recursive: true });
    writeFileSync(conflistPath(), JSON.stringify({ ...TEMPLATE, name: 'operator' }));
    const { output } = start({ IPAM_CNI_UNINSTALL: 'true' });
    await until('uninstalled', () => existsSync(readyFile()), output);
    expect(conflist().name).toBe('operator');
    expect(output()).toContain('it is not what this installer writes');
  });

  it('chained: installs the plugin and the token, and writes no conflist (the operator or Multus does)', async () => {
    const { child, output } = start({ IPAM_CNI_MODE: 'chained', IPAM_NODE_NAME: undefined, IPLEDGER_API_SERVICE_HOST: undefined });
    await until('ready', () => existsSync(readyFile()), output);
    expect(existsSync(join(binDir, 'ipledger-ipam'))).toBe(true);
    expect(readdirSync(netDir)).toEqual(['ipledger']);
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);
    expect(readdirSync(netDir)).toEqual(['ipledger']);
  });

  it('refuses to start without the node name, the Service variables, or with a broken template, and writes no conflist', async () => {
    for (const [extra, message] of [
      [{ IPAM_NODE_NAME: undefined }, 'IPAM_NODE_NAME is not set'],
      [{ IPLEDGER_API_SERVICE_HOST: undefined }, 'IPLEDGER_API_SERVICE_HOST is not set'],
      [{ IPAM_CNI_CONFLIST: '../escape.conflist' }, 'IPAM_CNI_CONFLIST must be <nn>-<name>.conflist'],
      [{ IPAM_CNI_UNINSTALL: 'yes' }, 'IPAM_CNI_UNINSTALL must be true or false'],
    ] as const) {
      const { child, output } = start(extra);
      expect((await once(child, 'exit'))[0]).toBe(1);
      expect(output()).toContain(message);
    }
    writeFileSync(templateFile, JSON.stringify({ ...TEMPLATE, plugins: [{ type: 'bridge', ipam: { type: 'host-local' } }] }));
    const { child, output } = start();
    expect((await once(child, 'exit'))[0]).toBe(1);
    expect(output()).toContain('no "ipam" of type "ipledger-ipam"');
    expect(existsSync(conflistPath())).toBe(false);
  });
});

describe('renderConflist', () => {
  const values = { nodeName: 'node-"1"', apiUrl: 'http://[fd00::1]:8080', tokenFile: '/etc/cni/net.d/ipledger/token' };

  it('fills placeholders inside strings, whatever characters the values hold', () => {
    const rendered = JSON.parse(renderConflist(JSON.stringify(TEMPLATE), values));
    expect(rendered.plugins[0].ipam).toMatchObject({ node: 'node-"1"', url: 'http://[fd00::1]:8080' });
  });

  it('leaves tokenFile out when the API takes no token', () => {
    const rendered = JSON.parse(renderConflist(JSON.stringify(TEMPLATE), { nodeName: 'n', apiUrl: 'http://10.0.0.1:80' }));
    expect(rendered.plugins[0].ipam).not.toHaveProperty('tokenFile');
  });

  it("keeps a template's own caFile, and refuses a CA for an API over plain HTTP", () => {
    const own = structuredClone(TEMPLATE) as any;
    own.plugins[0].ipam.caFile = '/etc/pki/ipledger.crt';
    const https = { ...values, apiUrl: 'https://10.0.0.1:8080', caFile: '/etc/cni/net.d/ipledger/ca.crt' };
    expect(JSON.parse(renderConflist(JSON.stringify(own), https)).plugins[0].ipam.caFile).toBe('/etc/pki/ipledger.crt');
    expect(() => renderConflist(JSON.stringify(TEMPLATE), { ...https, apiUrl: 'http://10.0.0.1:8080' })).toThrow(
      'ipam.caFile needs an https ipam.url',
    );
  });

  it("sets matchLabel where a section names no rule, and leaves a template's own rule alone", () => {
    const none = structuredClone(TEMPLATE) as any;
    delete none.plugins[0].ipam.matchLabel;
    expect(JSON.parse(renderConflist(JSON.stringify(none), { ...values, matchLabel: 'rack' })).plugins[0].ipam.matchLabel).toBe('rack');
    expect(JSON.parse(renderConflist(JSON.stringify(TEMPLATE), { ...values, matchLabel: 'rack' })).plugins[0].ipam.matchLabel).toBe(
      'pool-group',
    );
    const selector = structuredClone(none);
    selector.plugins[0].ipam.poolSelector = 'tier=web';
    const ipam = JSON.parse(renderConflist(JSON.stringify(selector), { ...values, matchLabel: 'rack' })).plugins[0].ipam;
    expect(ipam).toMatchObject({ poolSelector: 'tier=web' });
    expect(ipam).not.toHaveProperty('matchLabel');
  });

  it('refuses an unknown placeholder and an ipam section the plugin would refuse', () => {
    const unknown = JSON.stringify(TEMPLATE).replace('pool-group', '__POOL__');
    expect(() => renderConflist(unknown, values)).toThrow('unknown placeholder __POOL__');
    const twoRules = structuredClone(TEMPLATE) as any;
    twoRules.plugins[0].ipam.pools = ['a'];
    expect(() => renderConflist(JSON.stringify(twoRules), values)).toThrow('give at most one of ipam.pools');
    expect(() => renderConflist('{"cniVersion": ', values)).toThrow('not JSON');
  });
});

describe('installerSettings', () => {
  const base = { IPAM_NODE_NAME: 'n1', IPLEDGER_API_SERVICE_HOST: 'fd00::50', IPLEDGER_API_SERVICE_PORT: '8080' };

  it("builds the API's URL from the Service's variables (an IPv6 cluster IP in brackets); IPAM_CNI_API_URL overrides it", () => {
    expect(installerSettings(base, '/app/dist/cni').apiUrl).toBe('http://[fd00::50]:8080');
    expect(installerSettings({ ...base, IPAM_CNI_API_SCHEME: 'https' }, '/app/dist/cni').apiUrl).toBe('https://[fd00::50]:8080');
    expect(installerSettings({ ...base, IPAM_CNI_API_URL: 'https://ipam.example:443' }, '/x').apiUrl).toBe('https://ipam.example:443');
    expect(installerSettings(base, '/app/dist/cni').plugin).toBe('/app/dist/cni/ipledger-ipam');
  });

  it('refuses bad values with the variable named', () => {
    expect(() => installerSettings({ ...base, IPAM_CNI_MODE: 'multus' }, '/x')).toThrow('IPAM_CNI_MODE must be conflist or chained');
    expect(() => installerSettings({ ...base, IPAM_CNI_INTERVAL_SECONDS: '0' }, '/x')).toThrow('IPAM_CNI_INTERVAL_SECONDS');
    expect(() => installerSettings({ ...base, IPAM_CNI_API_SCHEME: 'ftp' }, '/x')).toThrow('IPAM_CNI_API_SCHEME');
  });
});
