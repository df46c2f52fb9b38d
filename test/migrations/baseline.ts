/**
 * The last release: its schema ends at `migration` (written before the additive rule; every later
 * migration follows it) and its code is `commit`. Move both on at each release.
 */
export const PREVIOUS_RELEASE = {
  name: '0.1.0',
  migration: '009_reliability.sql',
  commit: 'd3f1a215ab78aa3cb8b00bcfc0d1277952c502b6',
};

export const BASELINE = PREVIOUS_RELEASE.migration;
