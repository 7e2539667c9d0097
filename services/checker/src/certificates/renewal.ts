// The RFC 9773 (ACME Renewal Information) identifier of a certificate. When a
// certificate is renewed is @cds/core's renewalDue (DECISIONS §11).
import * as x509 from '@peculiar/x509';

/**
 * The RFC 9773 certificate identifier of a PEM certificate, or of a chain's
 * leaf (its first certificate): base64url of the leaf's Authority Key
 * Identifier keyIdentifier, a dot, base64url of the DER bytes of its serial
 * number. Null when the leaf has no AKI key identifier or does not parse.
 */
export function ariCertId(pem: string): string | null {
  let leaf: x509.X509Certificate;
  try {
    leaf = new x509.X509Certificate(pem); // of a chain, the first certificate
  } catch {
    return null;
  }
  const keyId = leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
  if (!keyId) return null;
  let serial = leaf.serialNumber.toLowerCase();
  if (serial.length % 2 === 1) serial = `0${serial}`;
  // A DER INTEGER is positive only without its high bit set.
  if (/^[89a-f]/.test(serial)) serial = `00${serial}`;
  return `${Buffer.from(keyId, 'hex').toString('base64url')}.${Buffer.from(serial, 'hex').toString('base64url')}`;
}
