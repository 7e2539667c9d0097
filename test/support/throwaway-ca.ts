import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayCa {
  /** The CA certificate's PEM file (for *_CA_BUNDLE variables). */
  caFile: string;
  caPem: string;
  /** A server certificate signed by this CA for `localhost` and 127.0.0.1. */
  leaf: { cert: string; key: string };
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA and one leaf certificate made with openssl in a temporary directory, valid for a day. */
export function createThrowawayCa(name = 'Test CA'): ThrowawayCa {
  const dir = mkdtempSync(join(tmpdir(), 'cds-ca-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  openssl(dir, ['req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost']);
  writeFileSync(join(dir, 'leaf.ext'), [
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
  ].join('\n'));
  openssl(dir, ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '1', '-extfile', 'leaf.ext']);
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  return {
    caFile: join(dir, 'ca.pem'),
    caPem: read('ca.pem'),
    leaf: { cert: read('leaf.pem'), key: read('leaf.key') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
