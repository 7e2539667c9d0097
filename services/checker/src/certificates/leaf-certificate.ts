// Leaf certificates signed by the internal CA, built with the ASN.1 schema of
// X.509 (@peculiar/asn1-x509) and signed and keyed by node's OpenSSL. The
// certificate generator of @peculiar/x509 builds the same certificate but
// parses its own output back, re-parses each extension and signs through
// WebCrypto: about 4 ms of CPU per certificate against about 1 ms here, and a
// checker issues while it checks.
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier, AttributeTypeAndValue, AttributeValue, AuthorityKeyIdentifier, BasicConstraints, Certificate, ExtendedKeyUsage, Extension, Extensions,
  GeneralName, id_ce_authorityKeyIdentifier, id_ce_basicConstraints, id_ce_extKeyUsage, id_ce_keyUsage, id_ce_subjectAltName, id_ce_subjectKeyIdentifier,
  id_kp_serverAuth, KeyIdentifier, KeyUsage, KeyUsageFlags, Name, RelativeDistinguishedName, SubjectAlternativeName, SubjectKeyIdentifier,
  SubjectPublicKeyInfo, TBSCertificate, Validity, Version,
} from '@peculiar/asn1-x509';

/** ecdsa-with-SHA256 (RFC 5758): the algorithm of every signature the CA makes (its key is P-256). */
const ECDSA_WITH_SHA256 = new AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.2' });
const COMMON_NAME = '2.5.4.3';

export interface SignedLeaf {
  certificatePem: string;
  /** PKCS#8 PEM of the leaf's P-256 key. */
  keyPem: string;
}

const extension = (extnID: string, critical: boolean, value: object) => new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });

function toPem(der: ArrayBuffer, label: string): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`;
}

/** Signs leaves for one CA: its name, key and key identifier are read once. */
export class LeafSigner {
  private readonly issuer: Name;
  private readonly key: KeyObject;
  /** The extensions every leaf has, whatever its hostname. */
  private readonly common: Extension[];

  constructor(caCertificatePem: string, caKeyPem: string) {
    const ca = AsnConvert.parse(Buffer.from(caCertificatePem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64'), Certificate);
    this.issuer = ca.tbsCertificate.subject;
    this.key = createPrivateKey(caKeyPem);
    const caKeyId = ca.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_subjectKeyIdentifier);
    this.common = [
      extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
      extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
      extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth])),
      ...(caKeyId
        ? [extension(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({
            keyIdentifier: new KeyIdentifier(AsnConvert.parse(caKeyId.extnValue.buffer, SubjectKeyIdentifier).buffer),
          }))]
        : []),
    ];
  }

  /** A leaf for `hostname` (its CN and only DNS name) with a fresh key pair. */
  sign(hostname: string, notBefore: Date, notAfter: Date): SignedLeaf {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'der' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const serial = new Uint8Array(randomBytes(16));
    serial[0] = 0x01; // positive, and never a leading zero byte
    const tbs = new TBSCertificate({
      version: Version.v3,
      serialNumber: serial.buffer,
      signature: ECDSA_WITH_SHA256,
      issuer: this.issuer,
      validity: new Validity({ notBefore, notAfter }),
      subject: new Name([new RelativeDistinguishedName([new AttributeTypeAndValue({ type: COMMON_NAME, value: new AttributeValue({ utf8String: hostname }) })])]),
      subjectPublicKeyInfo: AsnConvert.parse(keys.publicKey, SubjectPublicKeyInfo),
      extensions: new Extensions([...this.common, extension(id_ce_subjectAltName, false, new SubjectAlternativeName([new GeneralName({ dNSName: hostname })]))]),
    });
    const signatureValue = new Uint8Array(sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), { key: this.key, dsaEncoding: 'der' })).buffer;
    const certificate = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: ECDSA_WITH_SHA256, signatureValue });
    return { certificatePem: toPem(AsnConvert.serialize(certificate), 'CERTIFICATE'), keyPem: keys.privateKey };
  }
}
