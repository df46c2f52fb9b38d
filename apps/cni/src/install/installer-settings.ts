import { join } from 'node:path';

/** conflist: this installer writes the node's CNI config; chained: the operator's (Multus, a secondary network) names the plugin. */
export type InstallMode = 'conflist' | 'chained';

/** What the node installer does, from its environment (the DaemonSet's env, docs/cni.md). */
export interface InstallerSettings {
  mode: InstallMode;
  /** the Kubernetes name of this node (spec.nodeName through the downward API): the host name need not be it */
  nodeName: string;
  /** the API as the host reaches it, without cluster DNS */
  apiUrl: string;
  /** the plugin executable to install (the build's dist/cni/ipledger-ipam) */
  plugin: string;
  /** the host's CNI bin dir (/opt/cni/bin) as mounted in the installer's container */
  binDir: string;
  /** the host's CNI conf dir (/etc/cni/net.d) as mounted in the installer's container */
  netDir: string;
  /** the same conf dir as the host (and so the plugin) sees it: paths written into the conflist */
  hostNetDir: string;
  /** the conflist template (a ConfigMap key); read on every round, so an edited ConfigMap reaches the node */
  template: string;
  /** `<nn>-ipledger.conflist`: its number orders it among the node's other configs (the lowest wins) */
  conflistName: string;
  /**
   * the token: the node's projected ServiceAccount token (kubelet renews it in place), or a static
   * allocator token (a mounted Secret key); read at every round; none when the API runs without tokens
   */
  tokenSource?: string;
  /** the CA that signed the API's certificate (a mounted Secret key, e.g. cert-manager's ca.crt), for an https API */
  caSource?: string;
  /** the name the API's certificate carries, checked instead of the cluster IP the URL names */
  tlsServerName?: string;
  /** IPAM_CNI_CLUSTER: the `cluster` of every ipledger-ipam section that names none (a fleet's member: its token is reviewed by its own API server) */
  cluster?: string;
  /** IPAM_CNI_MATCH_LABEL: the pool rule `matchLabel` of every ipledger-ipam section that names no rule of its own */
  matchLabel?: string;
  intervalSeconds: number;
  /** IPAM_CNI_UNINSTALL=true: remove what the installer put on the node, once, then idle (docs/kubernetes.md, "Uninstall") */
  uninstall: boolean;
}

const CONFLIST_NAME = /^[0-9]{2}-[a-z0-9][a-z0-9.-]*\.conflist$/;
const LONGEST_INTERVAL_SECONDS = 3600;

function required(env: NodeJS.ProcessEnv, key: string, why: string): string {
  const value = env[key]?.trim();
  if (!value) throw new Error(`${key} is not set: ${why}`);
  return value;
}

/**
 * The API's address from the Kubernetes variables of the Service `ipledger-api` (kubelet sets
 * IPLEDGER_API_SERVICE_HOST and _PORT in every container of its namespace, at each container
 * start): the cluster IP, which a host reaches through kube-proxy without cluster DNS, read anew
 * when the installer restarts, so a recreated Service needs a restart of the DaemonSet, not an edit
 * of every node. IPAM_CNI_API_URL overrides it (an address outside the cluster).
 */
function apiUrl(env: NodeJS.ProcessEnv): string {
  const given = env.IPAM_CNI_API_URL?.trim();
  if (given) return given;
  const why =
    'the Kubernetes variable of the Service ipledger-api (create the Service first, then restart the installer), or set IPAM_CNI_API_URL';
  const host = required(env, 'IPLEDGER_API_SERVICE_HOST', why);
  const port = required(env, 'IPLEDGER_API_SERVICE_PORT', why);
  const scheme = env.IPAM_CNI_API_SCHEME?.trim() || 'http';
  if (scheme !== 'http' && scheme !== 'https') throw new Error(`IPAM_CNI_API_SCHEME must be http or https (got ${JSON.stringify(scheme)})`);
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function intervalSeconds(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 60;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > LONGEST_INTERVAL_SECONDS) {
    throw new Error(
      `IPAM_CNI_INTERVAL_SECONDS must be a whole number of seconds from 1 to ${LONGEST_INTERVAL_SECONDS} (got ${JSON.stringify(value)})`,
    );
  }
  return seconds;
}

function flag(env: NodeJS.ProcessEnv, key: string): boolean {
  const value = env[key]?.trim() || 'false';
  if (value !== 'true' && value !== 'false') throw new Error(`${key} must be true or false (got ${JSON.stringify(env[key])})`);
  return value === 'true';
}

/** The settings, or an Error naming the variable that is missing or wrong. */
export function installerSettings(env: NodeJS.ProcessEnv, installerDir: string): InstallerSettings {
  const mode = (env.IPAM_CNI_MODE?.trim() || 'conflist') as InstallMode;
  if (mode !== 'conflist' && mode !== 'chained') throw new Error(`IPAM_CNI_MODE must be conflist or chained (got ${JSON.stringify(mode)})`);
  const conflistName = env.IPAM_CNI_CONFLIST?.trim() || '10-ipledger.conflist';
  if (!CONFLIST_NAME.test(conflistName))
    throw new Error(`IPAM_CNI_CONFLIST must be <nn>-<name>.conflist (got ${JSON.stringify(conflistName)})`);
  // an empty IPAM_CNI_TOKEN: the API takes no tokens, and the conflist names no tokenFile
  const tokenSource = env.IPAM_CNI_TOKEN === undefined ? '/var/run/ipledger/token' : env.IPAM_CNI_TOKEN.trim() || undefined;
  return {
    mode,
    // chained: the operator's config names the node and the API
    nodeName: mode === 'conflist' ? required(env, 'IPAM_NODE_NAME', 'give it spec.nodeName through the downward API (fieldRef)') : '',
    apiUrl: mode === 'conflist' ? apiUrl(env) : '',
    plugin: env.IPAM_CNI_PLUGIN?.trim() || join(installerDir, 'ipledger-ipam'),
    binDir: env.IPAM_CNI_BIN_DIR?.trim() || '/host/opt/cni/bin',
    netDir: env.IPAM_CNI_NET_DIR?.trim() || '/host/etc/cni/net.d',
    hostNetDir: env.IPAM_CNI_HOST_NET_DIR?.trim() || '/etc/cni/net.d',
    template: env.IPAM_CNI_TEMPLATE?.trim() || '/etc/ipledger-cni/bridge.conflist.template',
    conflistName,
    ...(tokenSource ? { tokenSource } : {}),
    ...(env.IPAM_CNI_CA_FILE?.trim() ? { caSource: env.IPAM_CNI_CA_FILE.trim() } : {}),
    ...(env.IPAM_CNI_TLS_SERVER_NAME?.trim() ? { tlsServerName: env.IPAM_CNI_TLS_SERVER_NAME.trim() } : {}),
    ...(env.IPAM_CNI_CLUSTER?.trim() ? { cluster: env.IPAM_CNI_CLUSTER.trim() } : {}),
    ...(env.IPAM_CNI_MATCH_LABEL?.trim() ? { matchLabel: env.IPAM_CNI_MATCH_LABEL.trim() } : {}),
    intervalSeconds: intervalSeconds(env.IPAM_CNI_INTERVAL_SECONDS),
    uninstall: flag(env, 'IPAM_CNI_UNINSTALL'),
  };
}

/** Where the token lands on the host, readable by root only: `<conf dir>/ipledger/token`. */
export const tokenDir = (netDir: string) => join(netDir, 'ipledger');
export const tokenPath = (netDir: string) => join(tokenDir(netDir), 'token');
/** Where the API's CA lands on the host, beside the token. */
export const caPath = (netDir: string) => join(tokenDir(netDir), 'ca.crt');
