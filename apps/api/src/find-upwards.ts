import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder `relative` whose `marker` file exists, looked for upwards from `from`: the same code
 * finds it from the sources (tests) and from dist/ (built). Null when no ancestor has it.
 */
export function findUpwards(from: string, relative: string, marker: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(join(candidate, marker))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}
