/**
 * Reading the environment: both apps refuse a malformed value at start with the variable's name,
 * rather than run with a default the operator did not ask for.
 */
export function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  { min = 0, max }: { min?: number; max?: number } = {},
): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
    const range = max === undefined ? `of ${min} or more` : `from ${min} to ${max}`;
    throw new Error(`${name} "${text}" must be a whole number ${range}`);
  }
  return value;
}

/** The NATS the API and the watcher share when NATS_URL is unset: one on this host, as in development. */
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
