import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { certificateMismatch } from './certificate-match';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function keyPair(): Promise<{ keys: webcrypto.CryptoKeyPair; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { keys, keyPem: `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n` };
}

/** A self-signed certificate for `names` (dNSName entries) on `keys`, as PEM. */
async function certificate(keys: webcrypto.CryptoKeyPair, names: string[]): Promise<string> {
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01', name: `CN=${names[0] ?? 'none'}`, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3600_000),
    signingAlgorithm: ALGORITHM, keys,
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names.map((value) => ({ type: 'dns' as const, value })))] : [],
  });
  return cert.toString('pem');
}

describe('certificateMismatch', () => {
  it('accepts a leaf that names the hostname alone and carries the key', async () => {
    const { keys, keyPem } = await keyPair();
    const pem = await certificate(keys, ['shop.example.com']);
    expect(certificateMismatch(`${pem}\n${pem}\n`, 'shop.example.com', keyPem)).toBeNull();
  });

  it('refuses a leaf for another hostname, one with a name more, and one with no name', async () => {
    const { keys, keyPem } = await keyPair();
    expect(certificateMismatch(await certificate(keys, ['other.example.com']), 'shop.example.com', keyPem))
      .toBe('the certificate names DNS:other.example.com, not DNS:shop.example.com alone');
    expect(certificateMismatch(await certificate(keys, ['shop.example.com', 'other.example.com']), 'shop.example.com', keyPem))
      .toBe('the certificate names DNS:shop.example.com, DNS:other.example.com, not DNS:shop.example.com alone');
    expect(certificateMismatch(await certificate(keys, []), 'shop.example.com', keyPem)).toBe('the certificate names nothing, not DNS:shop.example.com alone');
  });

  it('refuses a leaf whose public key is not the key given', async () => {
    const [mine, other] = [await keyPair(), await keyPair()];
    expect(certificateMismatch(await certificate(other.keys, ['shop.example.com']), 'shop.example.com', mine.keyPem)).toBe("the certificate's public key is not the order's key");
  });

  it('refuses what is no certificate', () => {
    expect(certificateMismatch('not a certificate', 'shop.example.com', 'KEY')).toBe('the CA sent no readable certificate');
  });
});
