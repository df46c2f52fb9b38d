import { parseIpamConfig } from '../cni-config';

/** What the template's placeholders stand for (Calico's installer fills `__KUBERNETES_NODE_NAME__` alike). */
export interface ConflistValues {
  nodeName: string;
  apiUrl: string;
  /** the token file as the plugin on the host reads it; none: every `tokenFile` naming it is left out */
  tokenFile?: string;
  /** for an https API: its CA as the plugin on the host reads it, and the name its certificate carries */
  caFile?: string;
  tlsServerName?: string;
  /** the cluster for a section that names none (IPAM_CNI_CLUSTER) */
  cluster?: string;
  /** the pool rule for a section that names none (IPAM_CNI_MATCH_LABEL): each node takes the pools whose label equals its own */
  matchLabel?: string;
}

const PLACEHOLDER = /__[A-Z][A-Z0-9_]*__/g;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every string of the parsed template with its placeholders filled: JSON-escaping needs no care, as values never meet the text. */
function fill(value: unknown, placeholders: Record<string, string | undefined>): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (name) => {
      const filled = placeholders[name];
      if (filled === undefined)
        throw new Error(`the template has an unknown placeholder ${name} (known: ${Object.keys(placeholders).join(', ')})`);
      return filled;
    });
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, placeholders));
  if (!isObject(value)) return value;
  const filled: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // no token: the API takes none, so the plugin sends none
    if (key === 'tokenFile' && item === '__IPLEDGER_TOKEN_FILE__' && placeholders.__IPLEDGER_TOKEN_FILE__ === '') continue;
    filled[key] = fill(item, placeholders);
  }
  return filled;
}

/** The ipam sections of type ipledger-ipam, wherever a plugin of the list nests them. */
function ipledgerIpams(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(ipledgerIpams);
  if (!isObject(value)) return [];
  const own = isObject(value.ipam) && value.ipam.type === 'ipledger-ipam' ? [value.ipam] : [];
  return [...own, ...Object.entries(value).flatMap(([key, item]) => (key === 'ipam' ? [] : ipledgerIpams(item)))];
}

/**
 * The node's conflist from the ConfigMap's template: placeholders filled, then checked as kubelet's
 * runtime and the plugin will read it (a network list with plugins, and every ipledger-ipam section
 * valid as the plugin parses it), so a broken template fails the installer, not every pod start.
 */
export function renderConflist(template: string, values: ConflistValues): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(template);
  } catch (err) {
    throw new Error(`the conflist template is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const conflist = fill(parsed, {
    __KUBERNETES_NODE_NAME__: values.nodeName,
    __IPLEDGER_API_URL__: values.apiUrl,
    __IPLEDGER_TOKEN_FILE__: values.tokenFile ?? '',
  });
  if (!isObject(conflist) || typeof conflist.cniVersion !== 'string' || typeof conflist.name !== 'string') {
    throw new Error('the conflist template must be an object with "cniVersion", "name" and "plugins"');
  }
  if (
    !Array.isArray(conflist.plugins) ||
    conflist.plugins.length === 0 ||
    !conflist.plugins.every((p) => isObject(p) && typeof p.type === 'string')
  ) {
    throw new Error('the conflist template\'s "plugins" must be a non-empty list of objects with a "type"');
  }
  const ipams = ipledgerIpams(conflist.plugins);
  if (ipams.length === 0) throw new Error('the conflist template has no "ipam" of type "ipledger-ipam"');
  for (const ipam of ipams) {
    // the template's own values win; so one template serves an API over HTTP and over HTTPS
    if (values.caFile !== undefined) ipam.caFile ??= values.caFile;
    if (values.tlsServerName !== undefined) ipam.tlsServerName ??= values.tlsServerName;
    if (values.cluster !== undefined) ipam.cluster ??= values.cluster;
    // a rule the template gives itself (pools, poolSelector, matchLabel) wins: at most one is allowed
    if (values.matchLabel !== undefined && ipam.pools === undefined && ipam.poolSelector === undefined)
      ipam.matchLabel ??= values.matchLabel;
    try {
      parseIpamConfig(ipam, {});
    } catch (err) {
      throw new Error(`the conflist template, rendered: ${(err as Error).message}`, { cause: err });
    }
  }
  return JSON.stringify(conflist, null, 2) + '\n';
}
