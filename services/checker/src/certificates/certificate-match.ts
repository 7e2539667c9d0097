// What an ACME order hands back is checked before it is stored: the leaf must
// name exactly the hostname and carry the public key of the order's key. A
// resumed order comes from a saved row, and a row that was tampered with (or
// points at another hostname's order) must not get its certificate served.
import { createPrivateKey, X509Certificate } from 'node:crypto';

/** The names of a leaf's subjectAltName, each as `DNS:name` or `<type>:value`, in order. */
function alternativeNames(leaf: X509Certificate): string[] {
  return (leaf.subjectAltName ?? '').split(', ').filter((name) => name !== '');
}

/**
 * Why the chain's leaf is not a certificate for `hostname` with `keyPem`'s
 * public key (a sentence for the check's message), or null when it is.
 */
export function certificateMismatch(pemChain: string, hostname: string, keyPem: string): string | null {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pemChain);
  } catch {
    return 'the CA sent no readable certificate';
  }
  const names = alternativeNames(leaf);
  if (names.length !== 1 || names[0] !== `DNS:${hostname}`) {
    return `the certificate names ${names.length > 0 ? names.join(', ') : 'nothing'}, not DNS:${hostname} alone`;
  }
  if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) return "the certificate's public key is not the order's key";
  return null;
}
