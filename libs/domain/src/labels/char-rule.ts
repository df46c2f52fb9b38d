/**
 * Kubernetes label parts and object names share one shape: a run of allowed characters that must
 * begin and end with an alphanumeric one. Only the alphabets differ, so the check lives here once
 * and names the specific rule that was broken, letting every error message state it.
 */
export interface CharRule {
  /** Matches one character allowed anywhere. */
  readonly allowed: RegExp;
  readonly allowedText: string;
  /** Matches one character allowed at either end. */
  readonly edge: RegExp;
  readonly edgeText: string;
}

/** Why `value` breaks `rule`, or undefined when it follows it. Length limits are the caller's. */
export function charRuleViolation(value: string, rule: CharRule): string | undefined {
  for (const ch of value) {
    if (!rule.allowed.test(ch)) return `must consist of ${rule.allowedText} (found ${JSON.stringify(ch)})`;
  }
  // charAt yields '' for an empty string, which fails `edge`: an empty run has no valid ends.
  if (!rule.edge.test(value.charAt(0)) || !rule.edge.test(value.charAt(value.length - 1))) {
    return `must start and end with ${rule.edgeText}`;
  }
  return undefined;
}
