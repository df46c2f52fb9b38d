import { parseIpamConfig } from './cni-config';
import { ipamResult } from './cni-result';
import { SUPPORTED_VERSIONS } from './cni-versions';
import { prevResultAddresses } from './cni-check';

const ipam = parseIpamConfig(
  { url: 'http://a', node: 'n', routes: [{ dst: '0.0.0.0/0' }, { dst: 'fd00::/8' }, { dst: '10.0.0.0/8', gw: '10.1.0.9' }] },
  {},
);
const dual = [
  { ip: '10.1.0.5', prefixLength: 24, family: 4 as const, gateway: '10.1.0.1' },
  { ip: 'fd00:1::5', prefixLength: 64, family: 6 as const },
];

describe('IPAM result formats', () => {
  it.each(['0.3.0', '0.3.1', '0.4.0'] as const)('%s: every address names its IP version', (version) => {
    expect(ipamResult(version, dual, ipam).ips).toEqual([
      { version: '4', address: '10.1.0.5/24', gateway: '10.1.0.1' },
      { version: '6', address: 'fd00:1::5/64' },
    ]);
  });

  it.each(['1.0.0', '1.1.0'] as const)('%s: addresses without version, routes through the gateway of their family', (version) => {
    expect(ipamResult(version, dual, ipam)).toEqual({
      cniVersion: version,
      ips: [{ address: '10.1.0.5/24', gateway: '10.1.0.1' }, { address: 'fd00:1::5/64' }],
      // the IPv6 pool has no gateway: its route is left to the main plugin; an explicit gw stays
      routes: [{ dst: '0.0.0.0/0', gw: '10.1.0.1' }, { dst: 'fd00::/8' }, { dst: '10.0.0.0/8', gw: '10.1.0.9' }],
    });
  });

  it('leaves routes and dns out when the config has none, and never names an interface', () => {
    const plain = ipamResult('1.0.0', dual.slice(0, 1), parseIpamConfig({ url: 'http://a', node: 'n' }, {}));
    expect(plain).toEqual({ cniVersion: '1.0.0', ips: [{ address: '10.1.0.5/24', gateway: '10.1.0.1' }] });
    const withDns = ipamResult('1.0.0', dual, parseIpamConfig({ url: 'http://a', dns: { nameservers: ['10.0.0.10'] } }, {}));
    expect(withDns.dns).toEqual({ nameservers: ['10.0.0.10'] });
  });

  it('lists the versions oldest first, ending with 1.1.0', () => {
    expect(SUPPORTED_VERSIONS).toEqual(['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0']);
  });

  it('reads prevResult addresses in canonical form, whatever the version', () => {
    expect(
      prevResultAddresses({
        ips: [
          { address: 'FD00:1:0::5/64', version: '6' },
          { address: '10.1.0.5/24', interface: 2 },
        ],
      }),
    ).toEqual(['10.1.0.5/24', 'fd00:1::5/64']);
    expect(() => prevResultAddresses({ ips: [{ address: '10.1.0.5' }] })).toThrow(expect.objectContaining({ code: 7 }));
    expect(() => prevResultAddresses(undefined)).toThrow(expect.objectContaining({ code: 7 }));
  });
});
