/**
 * The Deployment or ReplicaSet whose ip-set a pool range is: the server names those ranges
 * `<Kind>:<name>` (docs/api.md "Ip-sets"), and a StatefulSet's name never holds a ':'. Null for a StatefulSet's.
 */
export function ipSetOf(range: { name: string }): { kind: string; name: string } | null {
  const match = /^(Deployment|ReplicaSet):(.+)$/.exec(range.name);
  return match ? { kind: match[1], name: match[2] } : null;
}

/** Who a range is for, in words: `ip-set of Deployment shop/web` or `StatefulSet apps/db`. */
export function rangeOwnerText(range: { namespace: string; name: string }): string {
  const ipSet = ipSetOf(range);
  return ipSet ? `ip-set of ${ipSet.kind} ${range.namespace}/${ipSet.name}` : `StatefulSet ${range.namespace}/${range.name}`;
}
