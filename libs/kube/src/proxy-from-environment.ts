import { BlockList, isIP } from 'node:net';

/** The environment variable that names the proxy, and its URL (`http://` when it names none, as Go assumes). */
export interface EnvironmentProxy {
  variable: string;
  url: string;
}

/**
 * The proxy for requests to `server`, decided as Go's http.ProxyFromEnvironment does for client-go:
 * HTTPS_PROXY for https servers, HTTP_PROXY for http ones (the uppercase name first), none for
 * localhost, loopback addresses and the hosts NO_PROXY lists.
 */
export function proxyFromEnvironment(server: string, env: NodeJS.ProcessEnv): EnvironmentProxy | undefined {
  const url = new URL(server);
  const secure = url.protocol === 'https:';
  const proxy = firstSet(env, secure ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy']);
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port || (secure ? '443' : '80');
  const noProxy = firstSet(env, ['NO_PROXY', 'no_proxy'])?.value ?? '';
  if (host === 'localhost' || isLoopback(host) || noProxy.split(',').some((entry) => bypasses(entry, host, port))) return undefined;
  const value = proxy.value.trim();
  return { variable: proxy.variable, url: /^[a-z][a-z\d+.-]*:\/\//i.test(value) ? value : `http://${value}` };
}

function firstSet(env: NodeJS.ProcessEnv, names: string[]): { variable: string; value: string } | undefined {
  const variable = names.find((name) => env[name]);
  return variable ? { variable, value: env[variable]! } : undefined;
}

/**
 * One NO_PROXY entry: `*`; a CIDR range; an IP address; a domain, which also matches its subdomains
 * (`.example.com` and `*.example.com` only those); IPs and domains optionally with `:port`.
 */
function bypasses(rawEntry: string, host: string, port: string): boolean {
  const entry = rawEntry.trim().toLowerCase();
  if (entry === '*') return true;
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (cidr) return inRange(host, cidr[1], Number(cidr[2]));
  const [, bracketed, plain, entryPort] = /^(?:\[([^\]]*)\]|([^:]*)):(\d*)$/.exec(entry) ?? [];
  const entryHost = bracketed ?? plain ?? entry.replace(/^\[(.*)\]$/, '$1');
  if (entryPort && entryPort !== port) return false;
  if (isIP(entryHost)) return inRange(host, entryHost, isIP(entryHost) === 4 ? 32 : 128);
  const domain = entryHost.startsWith('*.') ? entryHost.slice(1) : entryHost;
  if (!domain) return false;
  return domain.startsWith('.') ? host.endsWith(domain) : host === domain || host.endsWith(`.${domain}`);
}

function inRange(host: string, network: string, prefix: number): boolean {
  const networkFamily = isIP(network);
  if (!isIP(host) || !networkFamily || prefix > (networkFamily === 4 ? 32 : 128)) return false;
  const range = new BlockList();
  range.addSubnet(network, prefix, networkFamily === 4 ? 'ipv4' : 'ipv6');
  return range.check(host, isIP(host) === 4 ? 'ipv4' : 'ipv6');
}

function isLoopback(host: string): boolean {
  return inRange(host, '127.0.0.0', 8) || inRange(host, '::1', 128);
}
