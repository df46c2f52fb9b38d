import { InvalidInputError } from '../errors/domain-error';
import { type CharRule, charRuleViolation } from './char-rule';

/** Pool and node names end up as Kubernetes object names, so they obey the same DNS-1123 rules. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

const DNS1123_LABEL: CharRule = {
  allowed: /^[-a-z0-9]$/,
  allowedText: "lower case alphanumeric characters or '-'",
  edge: /^[a-z0-9]$/,
  edgeText: 'a lower case alphanumeric character',
};

const DNS1123_SUBDOMAIN: CharRule = {
  ...DNS1123_LABEL,
  allowed: /^[-a-z0-9.]$/,
  allowedText: "lower case alphanumeric characters, '-' or '.'",
};

function dns1123LabelViolation(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > DNS1123_LABEL_MAX_LENGTH) return `must be no more than ${DNS1123_LABEL_MAX_LENGTH} characters`;
  return charRuleViolation(value, DNS1123_LABEL);
}

/** Exported for label-key prefixes, which are DNS-1123 subdomains too. */
export function dns1123SubdomainViolation(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    return `must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`;
  }
  const violation = charRuleViolation(value, DNS1123_SUBDOMAIN);
  if (violation !== undefined) return violation;
  // The whole-string check cannot see "a..b" or "a.-b": every dot-separated part needs its own ends.
  if (value.split('.').some((part) => charRuleViolation(part, DNS1123_LABEL) !== undefined)) {
    return "must start and end each '.'-separated part with a lower case alphanumeric character";
  }
  return undefined;
}

export function validateDns1123Label(name: string, what: string): void {
  const violation = dns1123LabelViolation(name);
  if (violation !== undefined) {
    throw new InvalidInputError('INVALID_NAME', `${what} ${JSON.stringify(name)} is not a valid DNS-1123 label: ${violation}`);
  }
}

export function validateDns1123Subdomain(name: string, what: string): void {
  const violation = dns1123SubdomainViolation(name);
  if (violation !== undefined) {
    throw new InvalidInputError('INVALID_NAME', `${what} ${JSON.stringify(name)} is not a valid DNS-1123 subdomain: ${violation}`);
  }
}
