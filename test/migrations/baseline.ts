/** The schema of release 0.1.0, written before the additive rule: every migration after it follows the rule. */
export const BASELINE = '009_reliability.sql';
