// A certificate as a checker would store it, but expiring soon: what a test
// puts in place of a domain's certificate to make its renewal due.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encryptSecret } from '@cds/core';
import type { CertificateRow } from '@cds/data';

/** A self-signed ECDSA P-256 certificate for the domain's hostname that expires in `days` days, its key sealed with `encryptionKey`. */
export function expiringCertificate(domain: { id: string; hostname: string }, days: number, encryptionKey: Buffer): CertificateRow {
  const dir = mkdtempSync(join(tmpdir(), 'cds-expiring-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem',
      '-days', String(days), '-subj', `/CN=${domain.hostname}`, '-addext', `subjectAltName=DNS:${domain.hostname}`,
    ], { cwd: dir, stdio: 'pipe' });
    const pemChain = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const cert = new X509Certificate(pemChain);
    return {
      hostname: domain.hostname, domainId: domain.id, issuer: 'acme', pemChain,
      keySealed: encryptSecret(readFileSync(join(dir, 'key.pem'), 'utf8'), encryptionKey),
      notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo), createdAt: new Date(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
