import { hostname } from 'node:os';
import { DEFAULT_TIMEOUT_SECONDS, parseIpamConfig, parseNetworkConfig } from './cni-config';
import { CniError } from './cni-error';

const codeOf = (fn: () => unknown): number => {
  try {
    fn();
  } catch (err) {
    if (err instanceof CniError) return err.code;
    throw err;
  }
  throw new Error('expected a CniError');
};

const network = (ipam: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    cniVersion: '1.0.0',
    name: 'pods',
    type: 'bridge',
    ipam: { type: 'ipledger-ipam', url: 'http://api:3000', ...ipam },
    ...extra,
  });

describe('ipam config', () => {
  it('takes the documented keys, with defaults', () => {
    const config = parseNetworkConfig(
      network({ node: 'n1', matchLabel: 'pool-group', families: [4, 6], routes: [{ dst: '0.0.0.0/0' }] }),
      {},
    );
    expect(config).toEqual({
      cniVersion: '1.0.0',
      name: 'pods',
      ipam: {
        url: 'http://api:3000',
        node: 'n1',
        rule: { matchLabel: 'pool-group' },
        families: [4, 6],
        timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
        routes: [{ dst: '0.0.0.0/0' }],
      },
    });
  });

  it('takes the node from NODE_NAME, else the host name', () => {
    expect(parseIpamConfig({ url: 'http://a' }, { NODE_NAME: 'from-env' }).node).toBe('from-env');
    expect(parseIpamConfig({ url: 'http://a' }, {}).node).toBe(hostname());
    expect(parseIpamConfig({ url: 'http://a', node: 'explicit' }, { NODE_NAME: 'from-env' }).node).toBe('explicit');
  });

  it('keeps the cluster named (none: the token’s), a DNS-1123 label', () => {
    expect(parseIpamConfig({ url: 'http://a', cluster: 'east' }, {}).cluster).toBe('east');
    expect(parseIpamConfig({ url: 'http://a' }, {})).not.toHaveProperty('cluster');
    for (const cluster of ['East', 'east/west', '', 'a'.repeat(64), 7])
      expect(() => parseIpamConfig({ url: 'http://a', cluster }, {})).toThrow(/ipam.cluster must be a cluster name/);
  });

  it('keeps tokenFile, logFile, dns, prevResult and valid attachments', () => {
    const config = parseNetworkConfig(
      network(
        { tokenFile: '/etc/t', logFile: '/var/log/x', dns: { nameservers: ['10.0.0.10'], search: ['svc'] }, poolSelector: 'tier=web' },
        { prevResult: { ips: [] }, 'cni.dev/valid-attachments': [{ containerID: 'c', ifname: 'eth0', extra: 1 }] },
      ),
      {},
    );
    expect(config.ipam).toMatchObject({ tokenFile: '/etc/t', logFile: '/var/log/x', rule: { poolSelector: 'tier=web' } });
    expect(config.ipam.dns).toEqual({ nameservers: ['10.0.0.10'], search: ['svc'] });
    expect(config.prevResult).toEqual({ ips: [] });
    expect(config.validAttachments).toEqual([{ containerID: 'c', ifname: 'eth0' }]);
  });

  it.each([
    ['no url', { url: undefined }],
    ['a url that is not http', { url: 'ftp://x' }],
    ['two pool rules', { pools: ['a'], matchLabel: 'k' }],
    ['an empty pools list', { pools: [] }],
    ['families [6,4]', { families: [6, 4] }],
    ['families [4,4]', { families: [4, 4] }],
    ['a zero timeout', { timeoutSeconds: 0 }],
    ['a timeout as text', { timeoutSeconds: '10' }],
    ['a route dst that is not a network', { routes: [{ dst: '10.0.0.1/8' }] }],
    ['a route gw that is not an address', { routes: [{ dst: '0.0.0.0/0', gw: 'router' }] }],
    ['dns with an unknown key', { dns: { servers: ['1.1.1.1'] } }],
  ])('refuses %s with code 7', (_, ipam) => {
    expect(codeOf(() => parseNetworkConfig(network(ipam), {}))).toBe(7);
  });

  it('refuses a config that is not JSON (6), an unknown version (1), a bad network name or no ipam section (7)', () => {
    expect(codeOf(() => parseNetworkConfig('{', {}))).toBe(6);
    expect(codeOf(() => parseNetworkConfig('[]', {}))).toBe(6);
    expect(codeOf(() => parseNetworkConfig(network({}, { cniVersion: '0.2.0' }), {}))).toBe(1);
    expect(codeOf(() => parseNetworkConfig(network({}, { name: '-x' }), {}))).toBe(7);
    expect(codeOf(() => parseNetworkConfig(JSON.stringify({ cniVersion: '1.0.0', name: 'n' }), {}))).toBe(7);
  });
});
