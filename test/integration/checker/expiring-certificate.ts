// A certificate as a checker would store it, but near the end of its life:
// what a test puts in place of a domain's certificate to make its renewal due.
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { encryptSecret } from '@cds/core';
import type { CertificateRow } from '@cds/data';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const DAY_MS = 86_400_000;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * A self-signed ECDSA P-256 certificate for the domain's hostname with a
 * `lifetimeDays` lifetime (90 by default) of which `days` are left, its key
 * sealed with `encryptionKey`: with 10 of 90 days left, well past the two
 * thirds after which it is renewed.
 */
export async function expiringCertificate(domain: { id: string; hostname: string }, days: number, encryptionKey: Buffer, lifetimeDays = 90): Promise<CertificateRow> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const notAfter = new Date(Date.now() + days * DAY_MS);
  const notBefore = new Date(notAfter.getTime() - lifetimeDays * DAY_MS);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex')}`,
    name: `CN=${domain.hostname}`, notBefore, notAfter, signingAlgorithm: ALGORITHM, keys,
    extensions: [
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: domain.hostname }]),
      // What a CA's certificate carries, and what the ARI identifier is made of.
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
  return {
    hostname: domain.hostname, domainId: domain.id, issuer: 'acme', pemChain: certificate.toString('pem'),
    keySealed: encryptSecret(keyPem, encryptionKey, { purpose: 'certificate-key', id: domain.hostname }), notBefore: certificate.notBefore, notAfter: certificate.notAfter, createdAt: new Date(),
  };
}
