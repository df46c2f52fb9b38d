import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Server, ServerOptions } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { TlsFiles } from '../config';

/** How often the files are looked at (a stat): cert-manager's Secret changes by a symlink swap, which inotify can miss. */
const FILE_POLL_MS = 1000;

function secureContext(files: TlsFiles): SecureContextOptions {
  return {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
    ...(files.clientCaFile ? { ca: readFileSync(files.clientCaFile) } : {}),
  };
}

/** The HTTPS server's options; with a client CA, a client without a certificate that CA signed is refused in the handshake. */
export function httpsOptions(files: TlsFiles): ServerOptions {
  return { ...secureContext(files), ...(files.clientCaFile ? { requestCert: true, rejectUnauthorized: true } : {}) };
}

/**
 * New connections get the files as they are now, within a second of a change (connections already
 * open keep theirs). A certificate that does not load, or does not match its key (one file
 * replaced before the other), keeps the previous one and is logged; the next change tries again.
 */
export function reloadOnChange(server: Server, files: TlsFiles, log: { log(line: string): void; error(line: string): void }): () => void {
  const paths = [files.certFile, files.keyFile, files.clientCaFile].filter((path): path is string => path !== null);
  const onChange = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return;
    try {
      server.setSecureContext(secureContext(files));
      log.log(`re-read ${paths.join(', ')}: new connections get the new certificate`);
    } catch (err) {
      log.error(`kept the previous certificate: ${paths.join(', ')} did not load (${(err as Error).message})`);
    }
  };
  for (const path of paths) watchFile(path, { interval: FILE_POLL_MS }, onChange);
  return () => paths.forEach((path) => unwatchFile(path, onChange));
}
