import { isIPv4, isIPv6 } from 'node:net';
import { Environment } from '@marcbachmann/cel-js';
import { cidrContains, cidrFirst, cidrLast, parseCidr, parseIp, type Cidr } from '@ipledger/ip';

/**
 * A CEL environment with the part of Kubernetes' CEL library (k8s.io/apiserver/pkg/cel/library,
 * ip.go and cidr.go) that CRD rules use here, which no CEL evaluator on npm ships: isIP, isCIDR,
 * cidr() and its containsIP/containsCIDR. Their semantics are Go's netip, as Kubernetes uses it:
 * no zone (`%eth0`), no IPv4-mapped IPv6 address, no leading zero in an IPv4 octet; isCIDR accepts
 * host bits (10.0.0.1/24), as netip.ParsePrefix does.
 */
/** A JSON copy made in Node's realm, where the evaluator runs (test/support/native/cel-js.js). */
const { celValue } = process.getBuiltinModule('node:module').createRequire(__filename)('./native/cel-js-realm.cjs') as {
  celValue: <T>(value: T) => T;
};

class KubernetesCidr {
  constructor(readonly prefix: Cidr) {}
}

const IPV4_MAPPED = /^::ffff:/i;

function isKubernetesIp(text: string): boolean {
  if (text.includes('%')) return false;
  if (isIPv4(text)) return true;
  return isIPv6(text) && !IPV4_MAPPED.test(text);
}

function isKubernetesCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  // netip.ParsePrefix: decimal, no sign, no leading zero, within the family's width
  if (!/^(0|[1-9][0-9]{0,2})$/.test(bits) || !isKubernetesIp(address)) return false;
  return Number(bits) <= (isIPv4(address) ? 32 : 128);
}

function cidrOf(text: string): KubernetesCidr {
  if (!isKubernetesCidr(text)) throw new Error(`network address parse error during conversion from string: ${text}`);
  return new KubernetesCidr(parseCidr(text));
}

/** Evaluates the `rule` of an x-kubernetes-validations entry as the API server would, with `self` and `oldSelf`. */
export function kubernetesCel(): (rule: string, variables: { self: unknown; oldSelf: unknown }) => unknown {
  const env = new Environment({ unlistedVariablesAreDyn: true })
    .registerType('net.CIDR', KubernetesCidr)
    .registerFunction('isIP(string): bool', isKubernetesIp)
    .registerFunction('isCIDR(string): bool', isKubernetesCidr)
    .registerFunction('cidr(string): net.CIDR', cidrOf)
    .registerFunction('net.CIDR.containsIP(string): bool', (c: KubernetesCidr, ip: string) => {
      if (!isKubernetesIp(ip)) throw new Error(`IP Address ${JSON.stringify(ip)} parse error during conversion from string`);
      const address = parseIp(ip);
      return address.family === c.prefix.family && cidrContains(c.prefix, address);
    })
    .registerFunction('net.CIDR.containsCIDR(string): bool', (c: KubernetesCidr, other: string) => {
      const inner = cidrOf(other).prefix;
      return (
        inner.family === c.prefix.family &&
        inner.prefixLength >= c.prefix.prefixLength &&
        cidrFirst(inner) >= cidrFirst(c.prefix) &&
        cidrLast(inner) <= cidrLast(c.prefix)
      );
    });
  return (rule, variables) => env.evaluate(rule, celValue(variables));
}
