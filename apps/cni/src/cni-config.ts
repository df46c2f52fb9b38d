import { hostname } from 'node:os';
import { IpFormatError, parseCidr, parseIp } from '@ipledger/ip';
import { CNI_CODES, CniError } from './cni-error';
import { supportedVersion, type CniVersion } from './cni-versions';

export interface Route {
  dst: string;
  gw?: string;
}

export interface Dns {
  nameservers?: string[];
  domain?: string;
  search?: string[];
  options?: string[];
}

/** How the API chooses pools: at most one rule; none leaves the server's default. */
export type PoolRule = { pools: string[] } | { poolSelector: string } | { matchLabel: string } | Record<string, never>;

/** The `ipam` section, checked and with its defaults. */
export interface IpamConfig {
  url: string;
  tokenFile?: string;
  /** PEM file of the CA(s) that signed the API's certificate (an https url); without it, the system's CAs */
  caFile?: string;
  /** a client certificate and its key, for an API that requires them (IPAM_TLS_CLIENT_CA_FILE) */
  certFile?: string;
  keyFile?: string;
  /**
   * the name the API's certificate must carry (and the TLS server name sent), when `url` names an
   * address: the Service's cluster IP, which a certificate rarely lists (kubeconfig's tls-server-name)
   */
  tlsServerName?: string;
  node: string;
  /** the cluster acted in (the `/v1/clusters/{cluster}` routes); none: the token's cluster, else `default` */
  cluster?: string;
  rule: PoolRule;
  families?: (4 | 6)[];
  timeoutSeconds: number;
  routes: Route[];
  dns?: Dns;
  logFile?: string;
}

export interface Attachment {
  containerID: string;
  ifname: string;
}

/** The network configuration on stdin, as this plugin reads it. */
export interface NetworkConfig {
  cniVersion: CniVersion;
  name: string;
  ipam: IpamConfig;
  /** CHECK: the result of the ADD being checked */
  prevResult?: unknown;
  /** GC (1.1.0): the attachments still in use */
  validAttachments?: Attachment[];
}

export const DEFAULT_TIMEOUT_SECONDS = 10;
/** The CNI specification's rule for a network name. */
const NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

const invalid = (message: string) => new CniError(CNI_CODES.INVALID_CONFIG, `invalid ipledger-ipam config: ${message}`);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function optional<T>(section: Record<string, unknown>, key: string, valid: (v: unknown) => v is T, expected: string): T | undefined {
  const value = section[key];
  if (value === undefined) return undefined;
  if (!valid(value)) throw invalid(`ipam.${key} must be ${expected} (got ${JSON.stringify(value)})`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function checked<T>(what: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof IpFormatError) throw invalid(`${what}: ${err.message}`);
    throw err;
  }
}

function parseRoutes(value: unknown): Route[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('ipam.routes must be a list of {"dst": "<cidr>", "gw"?: "<ip>"}');
  return value.map((route, i) => {
    if (!isObject(route) || typeof route.dst !== 'string' || (route.gw !== undefined && typeof route.gw !== 'string')) {
      throw invalid(`ipam.routes[${i}] must be {"dst": "<cidr>", "gw"?: "<ip>"} (got ${JSON.stringify(route)})`);
    }
    checked(`ipam.routes[${i}].dst`, () => parseCidr(route.dst as string));
    if (route.gw === undefined) return { dst: route.dst };
    checked(`ipam.routes[${i}].gw`, () => parseIp(route.gw as string));
    return { dst: route.dst, gw: route.gw };
  });
}

function parseRule(ipam: Record<string, unknown>): PoolRule {
  const pools = optional(ipam, 'pools', (v): v is string[] => isStringList(v) && v.length > 0, 'a non-empty list of pool names');
  const poolSelector = optional(ipam, 'poolSelector', isString, 'a label selector');
  const matchLabel = optional(ipam, 'matchLabel', isString, 'a label key');
  const given = [pools && 'pools', poolSelector && 'poolSelector', matchLabel && 'matchLabel'].filter(Boolean);
  if (given.length > 1) throw invalid(`give at most one of ipam.pools, ipam.poolSelector and ipam.matchLabel (got ${given.join(', ')})`);
  if (pools) return { pools };
  if (poolSelector) return { poolSelector };
  if (matchLabel) return { matchLabel };
  return {};
}

function parseFamilies(value: unknown): (4 | 6)[] | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  if (text !== '[4]' && text !== '[6]' && text !== '[4,6]') throw invalid(`ipam.families must be [4], [6] or [4,6] (got ${text})`);
  return value as (4 | 6)[];
}

function parseTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 300) {
    throw invalid(`ipam.timeoutSeconds must be a number of seconds above 0 and at most 300 (got ${JSON.stringify(value)})`);
  }
  return value;
}

function parseUrl(value: unknown): string {
  if (typeof value !== 'string')
    throw invalid(
      'ipam.url is required: the ipledger API as the host reaches it without cluster DNS, e.g. "http://<cluster IP of the Service ipledger-api>:8080"',
    );
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`ipam.url ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`ipam.url must be http or https (got ${JSON.stringify(value)})`);
  return value.replace(/\/+$/, '');
}

function parseDns(value: unknown): Dns | undefined {
  if (value === undefined) return undefined;
  const lists = ['nameservers', 'search', 'options'];
  const valid =
    isObject(value) &&
    Object.entries(value).every(([k, v]) => (lists.includes(k) ? isStringList(v) : k === 'domain' ? typeof v === 'string' : false));
  if (!valid) throw invalid(`ipam.dns must be {"nameservers"?, "domain"?, "search"?, "options"?} (got ${JSON.stringify(value)})`);
  return value;
}

function parseAttachments(value: unknown): Attachment[] | undefined {
  if (value === undefined) return undefined;
  const valid =
    Array.isArray(value) && value.every((a) => isObject(a) && typeof a.containerID === 'string' && typeof a.ifname === 'string');
  if (!valid) throw invalid('cni.dev/valid-attachments must be a list of {"containerID", "ifname"}');
  return (value as Attachment[]).map(({ containerID, ifname }) => ({ containerID, ifname }));
}

/** A DNS name as a certificate carries it (RFC 1123 labels, at most 253 characters). */
const isDnsName = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length <= 253 &&
  /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(value);

/** A cluster's name as the API takes it: a DNS-1123 label. */
const isClusterName = (value: unknown): value is string => typeof value === 'string' && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(value);

/** caFile, certFile, keyFile and tlsServerName: for an https url only, the certificate and its key together. */
function parseTls(ipam: Record<string, unknown>, url: string): Pick<IpamConfig, 'caFile' | 'certFile' | 'keyFile' | 'tlsServerName'> {
  const files = {
    caFile: optional(ipam, 'caFile', isString, 'a file path'),
    certFile: optional(ipam, 'certFile', isString, 'a file path'),
    keyFile: optional(ipam, 'keyFile', isString, 'a file path'),
    tlsServerName: optional(ipam, 'tlsServerName', isDnsName, 'a DNS name, e.g. ipledger-api.ipledger.svc'),
  };
  const given = Object.entries(files).filter(([, file]) => file !== undefined);
  if (given.length && !url.startsWith('https:')) throw invalid(`ipam.${given[0][0]} needs an https ipam.url (got ${JSON.stringify(url)})`);
  if (!files.certFile !== !files.keyFile) throw invalid('ipam.certFile and ipam.keyFile go together: give both or neither');
  return Object.fromEntries(given);
}

/** The ipam section; `node` falls back to NODE_NAME, then the host name. */
export function parseIpamConfig(ipam: unknown, env: NodeJS.ProcessEnv): IpamConfig {
  if (!isObject(ipam)) throw invalid('the network config has no "ipam" object');
  const node = optional(ipam, 'node', isString, 'a node name') ?? (env.NODE_NAME || hostname());
  const url = parseUrl(ipam.url);
  return {
    url,
    ...(ipam.tokenFile === undefined ? {} : { tokenFile: optional(ipam, 'tokenFile', isString, 'a file path') }),
    ...parseTls(ipam, url),
    node,
    ...(ipam.cluster === undefined ? {} : { cluster: optional(ipam, 'cluster', isClusterName, 'a cluster name (a DNS-1123 label)') }),
    rule: parseRule(ipam),
    ...(ipam.families === undefined ? {} : { families: parseFamilies(ipam.families) }),
    timeoutSeconds: parseTimeout(ipam.timeoutSeconds),
    routes: parseRoutes(ipam.routes),
    ...(ipam.dns === undefined ? {} : { dns: parseDns(ipam.dns) }),
    ...(ipam.logFile === undefined ? {} : { logFile: optional(ipam, 'logFile', isString, 'a file path') }),
  };
}

/** stdin as a network config: code 6 when it is not JSON, 1 for a version this plugin does not speak, 7 for bad values. */
export function parseNetworkConfig(stdin: string, env: NodeJS.ProcessEnv): NetworkConfig {
  let json: unknown;
  try {
    json = JSON.parse(stdin);
  } catch (err) {
    throw new CniError(CNI_CODES.DECODE_FAILURE, `the network config on stdin is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(json)) throw new CniError(CNI_CODES.DECODE_FAILURE, 'the network config on stdin is not a JSON object');
  const cniVersion = supportedVersion(json.cniVersion);
  if (typeof json.name !== 'string' || !NETWORK_NAME.test(json.name)) {
    throw invalid(
      `the network "name" must be a letter or digit followed by letters, digits, "_", "." or "-" (got ${JSON.stringify(json.name)})`,
    );
  }
  const validAttachments = parseAttachments(json['cni.dev/valid-attachments']);
  return {
    cniVersion,
    name: json.name,
    ipam: parseIpamConfig(json.ipam, env),
    ...(json.prevResult === undefined ? {} : { prevResult: json.prevResult }),
    ...(validAttachments ? { validAttachments } : {}),
  };
}
