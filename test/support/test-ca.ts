import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
}

export interface TestCa {
  /** the CA's certificate (PEM), to trust */
  caFile: string;
  /** a certificate this CA signs, for 127.0.0.1 and localhost, good for servers and clients alike */
  issue(name: string): IssuedCertificate;
  /** moves a certificate and key over `to`'s files (renames: the way a Secret's files change at once) */
  replace(to: IssuedCertificate, from: IssuedCertificate): void;
  close(): void;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A certificate authority made for one test with the `openssl` CLI, in a temporary folder of its own. */
export function createTestCa(name: string): TestCa {
  const dir = mkdtempSync(join(tmpdir(), `test-ca-${name}-`));
  openssl(dir, ['req', '-x509', ...EC_KEY, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', `/CN=${name} test CA`]);
  writeFileSync(
    join(dir, 'leaf.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n',
  );
  let issued = 0;
  return {
    caFile: join(dir, 'ca.crt'),
    issue(leaf) {
      const base = `${leaf}-${++issued}`;
      openssl(dir, ['req', ...EC_KEY, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${leaf}`]);
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        'leaf.ext',
        '-out',
        `${base}.crt`,
      ]);
      return { certFile: join(dir, `${base}.crt`), keyFile: join(dir, `${base}.key`) };
    },
    replace(to, from) {
      renameSync(from.keyFile, to.keyFile);
      renameSync(from.certFile, to.certFile);
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
