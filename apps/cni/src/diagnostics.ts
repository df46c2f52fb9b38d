import { appendFileSync } from 'node:fs';

export type Log = (message: string) => void;

/**
 * Diagnostics go to `logFile` when the config names one, else to stderr; never to stdout, which
 * carries only the result or the CNI error. A log file that cannot be written falls back to stderr.
 */
export function diagnostics(context: string, logFile?: string): Log {
  return (message) => {
    const line = `${new Date().toISOString()} ipledger-ipam ${context}: ${message}\n`;
    if (logFile) {
      try {
        appendFileSync(logFile, line);
        return;
      } catch {
        // fall through to stderr
      }
    }
    process.stderr.write(line);
  };
}
