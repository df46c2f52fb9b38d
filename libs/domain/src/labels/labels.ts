import { InvalidInputError } from '../errors/domain-error';
import { type CharRule, charRuleViolation } from './char-rule';
import { DNS1123_SUBDOMAIN_MAX_LENGTH, dns1123SubdomainViolation } from './names';

/** Node labels as Kubernetes defines them; pools select nodes by these. */
export type Labels = Record<string, string>;

/** The same keys with the same values: a PUT of them changes nothing. */
export const sameLabels = (a: Labels, b: Labels): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** Kubernetes sets no count; a pool or node with more labels than this is a mistake or an attack. */
export const MAX_LABELS = 256;

const NAME_PART_MAX_LENGTH = 63;
export const LABEL_VALUE_MAX_LENGTH = 63;
/** a 253-character DNS-1123 prefix, "/" and a 63-character name */
export const LABEL_KEY_MAX_LENGTH = DNS1123_SUBDOMAIN_MAX_LENGTH + 1 + NAME_PART_MAX_LENGTH;

const QUALIFIED_NAME: CharRule = {
  allowed: /^[-A-Za-z0-9_.]$/,
  allowedText: "alphanumeric characters, '-', '_' or '.'",
  edge: /^[A-Za-z0-9]$/,
  edgeText: 'an alphanumeric character',
};

/** Label values are qualified-name parts that may also be empty. */
function valueRuleViolation(value: string): string | undefined {
  if (value.length > LABEL_VALUE_MAX_LENGTH) return `must be no more than ${LABEL_VALUE_MAX_LENGTH} characters`;
  return value.length === 0 ? undefined : charRuleViolation(value, QUALIFIED_NAME);
}

/** Kubernetes qualified name: `[prefix/]name`, the prefix being a DNS-1123 subdomain. */
function keyRuleViolation(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return "must contain at most one '/', separating an optional DNS subdomain prefix from the name";
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefixViolation = dns1123SubdomainViolation(parts[0]);
    if (prefixViolation !== undefined) return `prefix part ${prefixViolation}`;
  }
  if (name.length === 0) return 'name part must not be empty';
  if (name.length > NAME_PART_MAX_LENGTH) return `name part must be no more than ${NAME_PART_MAX_LENGTH} characters`;
  const nameViolation = charRuleViolation(name, QUALIFIED_NAME);
  return nameViolation === undefined ? undefined : `name part ${nameViolation}`;
}

/** The full error message for a bad key, or undefined; the selector parser reuses it with a position. */
export function labelKeyProblem(key: string): string | undefined {
  const violation = keyRuleViolation(key);
  return violation === undefined ? undefined : `label key ${JSON.stringify(key)} is invalid: ${violation}`;
}

/** The full error message for a bad value, or undefined; the selector parser reuses it with a position. */
export function labelValueProblem(key: string, value: string): string | undefined {
  const violation = valueRuleViolation(value);
  return violation === undefined
    ? undefined
    : `label value ${JSON.stringify(value)} for key ${JSON.stringify(key)} is invalid: ${violation}`;
}

export function validateLabelKey(key: string): void {
  const problem = labelKeyProblem(key);
  if (problem !== undefined) throw new InvalidInputError('INVALID_LABEL', problem);
}

export function validateLabelValue(key: string, value: string): void {
  const problem = labelValueProblem(key, value);
  if (problem !== undefined) throw new InvalidInputError('INVALID_LABEL', problem);
}

/** Arrays, Maps and class instances are objects too, but their entries are not label maps. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks untrusted input (request bodies, stored events) and returns a fresh copy, so later
 * mutation of the caller's object cannot smuggle unvalidated labels past this point.
 */
export function validateLabels(labels: unknown, what = 'labels'): Labels {
  if (!isPlainObject(labels)) {
    throw new InvalidInputError('INVALID_LABEL', `${what} must be an object mapping label keys to string values`);
  }
  const count = Object.keys(labels).length;
  if (count > MAX_LABELS) throw new InvalidInputError('INVALID_LABEL', `${what} has ${count} labels; at most ${MAX_LABELS} are allowed`);
  // No prototype: keys such as "__proto__" or "constructor" are ordinary label keys here.
  const result: Labels = Object.create(null) as Labels;
  for (const [key, value] of Object.entries(labels)) {
    validateLabelKey(key);
    if (typeof value !== 'string') {
      throw new InvalidInputError(
        'INVALID_LABEL',
        `${what}: value of label ${JSON.stringify(key)} must be a string, got ${value === null ? 'null' : typeof value}`,
      );
    }
    validateLabelValue(key, value);
    result[key] = value;
  }
  return result;
}
