// CERT_ISSUER=internal: a local CA kept in the database (like Caddy's
// `tls internal`) signs ECDSA P-256 leaf certificates. The CA key is stored
// sealed with DATA_ENCRYPTION_KEY in the settings table.
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { decryptSecret, encryptSecret, SEAL_PURPOSES, type DataKeys } from '@cds/core';
import type { DataStore } from '@cds/data';
import type { CertificateIssuer, IssuedCertificate } from './issuer';
import { LeafSigner } from './leaf-certificate';

const crypto = webcrypto;
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const CA_VALIDITY_MS = 10 * 365 * 24 * 3600_000;
const LEAF_VALIDITY_MS = 90 * 24 * 3600_000;
/** Tolerates clocks a little behind the issuer's. */
const BACKDATE_MS = 5 * 60_000;

export const INTERNAL_CA_SETTINGS = { certificate: 'internal_ca_certificate', keySealed: 'internal_ca_key_sealed' } as const;

interface CertificateAuthority {
  pem: string;
  notAfter: Date;
  signer: LeafSigner;
}

const serialNumber = () => `01${randomBytes(15).toString('hex')}`;

async function exportKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
}

async function createAuthority(now: Date): Promise<{ certificatePem: string; keyPem: string }> {
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=Custom Domain Service Internal CA ${randomBytes(4).toString('hex')}`,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificatePem: certificate.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

export class InternalCa implements CertificateIssuer {
  readonly kind = 'internal' as const;
  private authority: Promise<CertificateAuthority> | null = null;

  constructor(
    private readonly store: DataStore,
    private readonly encryptionKey: DataKeys,
    private readonly now: () => Date = () => new Date(),
    /** The lifetime of a leaf (90 days; tests of renewal give a short one). */
    private readonly leafValidityMs = LEAF_VALIDITY_MS,
  ) {}

  async prepare(): Promise<void> {
    await this.load();
  }

  /** The CA certificate (PEM), created on first use. */
  async certificatePem(): Promise<string> {
    return (await this.load()).pem;
  }

  async issue(hostname: string): Promise<IssuedCertificate> {
    const ca = await this.load();
    const now = this.now();
    // A short lifetime is not swallowed by the backdating.
    const notBefore = new Date(now.getTime() - Math.min(BACKDATE_MS, Math.floor(this.leafValidityMs / 10)));
    const notAfter = new Date(Math.min(now.getTime() + this.leafValidityMs, ca.notAfter.getTime()));
    const leaf = ca.signer.sign(hostname, notBefore, notAfter);
    return { pemChain: `${leaf.certificatePem}\n${ca.pem}\n`, keyPem: leaf.keyPem, notBefore, notAfter };
  }

  private load(): Promise<CertificateAuthority> {
    this.authority ??= this.loadOrCreate().catch((err: unknown) => {
      this.authority = null;
      throw err;
    });
    return this.authority;
  }

  private async loadOrCreate(): Promise<CertificateAuthority> {
    // The first checker to get here creates the CA; the others read the stored one.
    const stored = await this.store.transaction(async (r) => {
      const certificatePem = await r.settings.get(INTERNAL_CA_SETTINGS.certificate);
      const keySealed = await r.settings.get(INTERNAL_CA_SETTINGS.keySealed);
      const sealedAs = { purpose: SEAL_PURPOSES.setting, id: INTERNAL_CA_SETTINGS.keySealed };
      if (certificatePem && keySealed) return { certificatePem, keyPem: decryptSecret(keySealed, this.encryptionKey, sealedAs) };
      const created = await createAuthority(this.now());
      await r.settings.set(INTERNAL_CA_SETTINGS.certificate, created.certificatePem);
      await r.settings.set(INTERNAL_CA_SETTINGS.keySealed, encryptSecret(created.keyPem, this.encryptionKey, sealedAs));
      return created;
    });
    const certificate = new x509.X509Certificate(stored.certificatePem);
    return { pem: certificate.toString('pem'), notAfter: certificate.notAfter, signer: new LeafSigner(stored.certificatePem, stored.keyPem) };
  }
}
