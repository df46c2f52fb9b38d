import type { IpamConfig } from './cni-config';
import type { CniVersion } from './cni-versions';

/** What the plugin needs of an Allocation from the API. */
export interface AllocatedAddress {
  ip: string;
  prefixLength: number;
  family: 4 | 6;
  gateway?: string;
}

interface ResultIp {
  /** 0.3.x and 0.4.0 only: "4" or "6" */
  version?: '4' | '6';
  address: string;
  gateway?: string;
}

export interface IpamResult {
  cniVersion: CniVersion;
  ips: ResultIp[];
  routes?: Array<{ dst: string; gw?: string }>;
  dns?: IpamConfig['dns'];
}

/**
 * The config's routes, a route without `gw` going through the pool gateway of its family: the
 * main plugin installs it so anyway, and a result that says so passes the main plugin's CHECK.
 */
function routesVia(routes: IpamConfig['routes'], addresses: AllocatedAddress[]): IpamConfig['routes'] {
  return routes.map((route) => {
    const family = route.dst.includes(':') ? 6 : 4;
    const gateway = addresses.find((a) => a.family === family)?.gateway;
    return route.gw || !gateway ? route : { ...route, gw: gateway };
  });
}

/**
 * An IPAM result in the format of the config's version: before 1.0.0 each address names its IP
 * version. `interface` is left out: the main plugin sets it, knowing the interfaces it made.
 */
export function ipamResult(cniVersion: CniVersion, addresses: AllocatedAddress[], ipam: IpamConfig): IpamResult {
  const legacy = cniVersion.startsWith('0.');
  return {
    cniVersion,
    ips: addresses.map((a) => ({
      ...(legacy ? { version: String(a.family) as '4' | '6' } : {}),
      address: `${a.ip}/${a.prefixLength}`,
      ...(a.gateway ? { gateway: a.gateway } : {}),
    })),
    ...(ipam.routes.length > 0 ? { routes: routesVia(ipam.routes, addresses) } : {}),
    ...(ipam.dns ? { dns: ipam.dns } : {}),
  };
}
