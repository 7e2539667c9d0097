import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { ariCertId } from './renewal';

describe('ariCertId', () => {
  test('the example of RFC 9773 §4.1', async () => {
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '87654321', name: 'CN=ari', notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), signingAlgorithm: alg, keys,
      extensions: [new x509.AuthorityKeyIdentifierExtension('69885b6b87464041e1b37b847ba0ae2cde01c8d4')],
    });
    expect(ariCertId(cert.toString('pem'))).toBe('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
    // Of a chain, the leaf's: the first certificate.
    const issuer = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01', name: 'CN=issuer', notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), signingAlgorithm: alg, keys,
      extensions: [new x509.AuthorityKeyIdentifierExtension('0102030405060708090a0b0c0d0e0f1011121314')],
    });
    expect(ariCertId(`${cert.toString('pem')}\n${issuer.toString('pem')}\n`)).toBe('aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE');
  });

  test('null for text that is no certificate', () => {
    expect(ariCertId('')).toBeNull();
    expect(ariCertId('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n')).toBeNull();
  });
});
