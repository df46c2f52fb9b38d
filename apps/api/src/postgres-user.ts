import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The operating-system account the embedded server runs as when this process is root. */
export interface PostgresUser {
  uid: number;
  /** its primary group: the only one the server runs with (spawn drops supplementary groups) */
  gid: number;
}

function ids(): PostgresUser {
  const id = (flag: string) => execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  return { uid: Number(id('-u')), gid: Number(id('-g')) };
}

/** The `postgres` account (PostgreSQL refuses to run as root), created when the machine has none. */
export function postgresUser(): PostgresUser {
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
      execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
        stdio: 'ignore',
      });
    } catch (err) {
      throw new Error(
        `PostgreSQL cannot run as root and there is no \`postgres\` user to run it as, nor could one be made (${(err as Error).message.split('\n')[0]}): ` +
          'create one (useradd --system postgres), run as another user, or set DATABASE_URL',
        { cause: err },
      );
    }
    return ids();
  }
}

/**
 * The first folder on the way to `path` (itself included) that `user` may not enter, or null when
 * it reaches `path`. Folders that do not exist yet are made by this process, open to it (0755).
 * Reads the mode bits only: an ACL that opens a folder is not seen, so this errs on the closed side.
 */
export function closedFolder(path: string, user: PostgresUser): string | null {
  const folders: string[] = [];
  for (let folder = resolve(path); ; folder = dirname(folder)) {
    folders.unshift(folder);
    if (folder === dirname(folder)) break;
  }
  for (const folder of folders) {
    let stat;
    try {
      stat = statSync(folder);
    } catch {
      return null; // missing from here on
    }
    if (!stat.isDirectory()) continue; // the last component may be a file
    const shift = stat.uid === user.uid ? 6 : stat.gid === user.gid ? 3 : 0;
    if (((stat.mode >> shift) & 0o1) === 0) return folder;
  }
  return null;
}
