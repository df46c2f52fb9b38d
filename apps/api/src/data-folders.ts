import { existsSync } from 'node:fs';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { BELONGS_TO_FILE, DEFAULT_DATA_DIR, FALLBACK_DATA_ROOT, serverOn, type RunningServer } from './embedded-database';

/** A folder of the embedded PostgreSQL's data (`ipledger data`). */
export interface DataFolder {
  path: string;
  bytes: number;
  /** the IPAM_DATA_DIR it serves; null when not recorded (a folder made before ipledger recorded it) */
  belongsTo: string | null;
  /** whether the folder IPAM_DATA_DIR lies in (the checkout, for the default `.ipledger`) still exists */
  checkoutExists: boolean;
  server: RunningServer | null;
}

/** Bytes of the files under `path`; what this user may not read is not counted. */
async function size(path: string): Promise<number> {
  const stat = await lstat(path).catch(() => null);
  if (!stat?.isDirectory()) return stat?.size ?? 0;
  const names = await readdir(path).catch(() => []);
  let total = 0;
  for (const name of names) total += await size(join(path, name));
  return total;
}

async function describe(path: string): Promise<DataFolder> {
  const recorded = (await readFile(join(path, BELONGS_TO_FILE), 'utf8').catch(() => '')).trim();
  const belongsTo = recorded || null;
  return {
    path,
    bytes: await size(path),
    belongsTo,
    checkoutExists: belongsTo !== null && existsSync(dirname(belongsTo)),
    server: await serverOn(path),
  };
}

/**
 * The embedded server's data folders on this machine: every one under /var/lib/ipledger (where a
 * checkout the `postgres` user cannot enter keeps its data, one folder a checkout) and this
 * checkout's own IPAM_DATA_DIR. A folder in another checkout is that checkout's, and goes with it.
 */
export async function dataFolders(env: NodeJS.ProcessEnv): Promise<DataFolder[]> {
  const fallback = (await readdir(FALLBACK_DATA_ROOT).catch(() => [])).map((name) => join(FALLBACK_DATA_ROOT, name));
  const own = resolve(env.IPAM_DATA_DIR || DEFAULT_DATA_DIR);
  const paths = [...fallback, ...(existsSync(join(own, 'postgres')) && !fallback.includes(own) ? [own] : [])];
  return Promise.all(paths.map(describe));
}

/** A folder `data prune` removes: its checkout is gone, and no server runs on it. One under /var/lib/ipledger only. */
export const prunable = (folder: DataFolder): boolean =>
  folder.belongsTo !== null && !folder.checkoutExists && folder.server === null && dirname(folder.path) === FALLBACK_DATA_ROOT;

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function line(folder: DataFolder): string {
  const whose = folder.belongsTo ? `for ${folder.belongsTo}` : 'for an unrecorded checkout';
  const checkout = folder.belongsTo === null ? 'checkout unknown' : folder.checkoutExists ? 'checkout present' : 'checkout gone';
  const server = folder.server ? `server running (pid ${folder.server.pid}, port ${folder.server.port})` : 'no server';
  return [folder.path, mib(folder.bytes), whose, checkout, server].join('\t');
}

/** `ipledger data`: a line a folder, then what prune would remove; `ipledger data prune`: removes those. Exit 0. */
export async function dataCommand(prune: boolean, env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const folders = await dataFolders(env);
  const gone = folders.filter(prunable);
  if (prune) {
    for (const folder of gone) {
      await rm(folder.path, { recursive: true, force: true });
      out(`removed ${folder.path} (${mib(folder.bytes)}, ${folder.belongsTo})`);
    }
    for (const folder of folders.filter((f) => !f.checkoutExists && f.server))
      out(`kept ${folder.path}: its checkout is gone, but a server runs on it (pid ${folder.server!.pid}); stop it first`);
    out(`removed ${gone.length} data folder(s) whose checkout is gone, ${mib(gone.reduce((sum, f) => sum + f.bytes, 0))}`);
    return 0;
  }
  if (folders.length === 0) {
    out(`no embedded data folder (none under ${FALLBACK_DATA_ROOT}, none in ${resolve(env.IPAM_DATA_DIR || DEFAULT_DATA_DIR)})`);
    return 0;
  }
  for (const folder of folders) out(line(folder));
  const total = mib(folders.reduce((sum, f) => sum + f.bytes, 0));
  out(
    `${folders.length} data folder(s), ${total}; ` +
      (gone.length ? `${gone.length} whose checkout is gone: ipledger data prune removes them` : 'none to prune'),
  );
  return 0;
}
