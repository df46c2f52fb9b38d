import {
  chmodSync,
  closeSync,
  copyFileSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';

/** The name a file is written under before it is renamed over its target: no extension kubelet's runtime reads (.conf, .conflist, .json). */
const pending = (target: string) => `${target}.ipledger-new`;

function renameIntoPlace(temporary: string, target: string, mode: number): void {
  try {
    chmodSync(temporary, mode);
    const fd = openSync(temporary, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/** The file's content now, or null when there is none. */
export function readIfThere(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

const CHUNK = 1 << 20;

/** Whether two files hold the same bytes, read a chunk at a time (the plugin is tens of MB; the installer's memory is small). */
function sameBytes(a: string, b: string): boolean {
  let fdA: number | undefined;
  let fdB: number | undefined;
  try {
    fdA = openSync(a, 'r');
    fdB = openSync(b, 'r');
    if (fstatSync(fdA).size !== fstatSync(fdB).size) return false;
    const bufA = Buffer.alloc(CHUNK);
    const bufB = Buffer.alloc(CHUNK);
    for (;;) {
      const n = readSync(fdA, bufA, 0, CHUNK, null);
      if (n !== readSync(fdB, bufB, 0, CHUNK, null) || !bufA.subarray(0, n).equals(bufB.subarray(0, n))) return false;
      if (n === 0) return true;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && fdA !== undefined) return false;
    throw err;
  } finally {
    if (fdA !== undefined) closeSync(fdA);
    if (fdB !== undefined) closeSync(fdB);
  }
}

/**
 * `content` into `target` by writing a file next to it and renaming it over the target: whoever
 * reads the target (kubelet's runtime, a pod start) sees the old file or the new one, never half of
 * one. Left alone when it already holds exactly that; true when it was written.
 */
export function writeAtomically(target: string, content: string | Buffer, mode: number): boolean {
  const bytes = Buffer.from(content);
  if (readIfThere(target)?.equals(bytes) && (statSync(target).mode & 0o777) === mode) return false;
  const temporary = pending(target);
  const fd = openSync(temporary, 'w', mode);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  renameIntoPlace(temporary, target, mode);
  return true;
}

/**
 * `source` copied to `target` the same way (copied next to it, then renamed): a runtime that starts
 * the plugin during an upgrade runs the old executable or the new one (a file being executed cannot
 * be opened for writing anyway: ETXTBSY). Left alone when the two are already the same bytes.
 */
export function copyAtomically(source: string, target: string, mode: number): boolean {
  if (sameBytes(source, target) && (statSync(target).mode & 0o777) === mode) return false;
  const temporary = pending(target);
  copyFileSync(source, temporary);
  renameIntoPlace(temporary, target, mode);
  return true;
}
