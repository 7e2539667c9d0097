// Which CAA issuer domains stand for the CA behind a directory (DECISIONS §14):
// what ACME_CAA_IDENTITY_<n> says, else what the directory lists in
// `meta.caaIdentities` (RFC 8555 §7.1.1), else the identity of a well-known
// directory host. With none, CAA can only tell "no CA at all" (`issue ";"`).

/** Directory hosts and the CAA identity of their CA. */
const WELL_KNOWN: Readonly<Record<string, readonly string[]>> = {
  'acme-v02.api.letsencrypt.org': ['letsencrypt.org'],
  'acme-staging-v02.api.letsencrypt.org': ['letsencrypt.org'],
  'acme.zerossl.com': ['sectigo.com'],
  'acme.sectigo.com': ['sectigo.com'],
  'dv.acme-v02.api.pki.goog': ['pki.goog'],
  'dv.acme-v02.test-api.pki.goog': ['pki.goog'],
  'api.buypass.com': ['buypass.com'],
  'api.test4.buypass.no': ['buypass.com'],
  'acme.ssl.com': ['ssl.com'],
  'acme.digicert.com': ['digicert.com'],
};

/** The well-known identities of a directory's host; empty when the host is not known here. */
export function wellKnownCaaIdentities(directoryUrl: string): readonly string[] {
  const host = URL.canParse(directoryUrl) ? new URL(directoryUrl).hostname.toLowerCase() : '';
  return WELL_KNOWN[host] ?? [];
}

/**
 * `configured`: ACME_CAA_IDENTITY_<n> (null when unset); `listed`: the
 * directory's `meta.caaIdentities` (null when it could not be read).
 */
export function caaIdentitiesOf(directoryUrl: string, configured: readonly string[] | null, listed: readonly string[] | null): readonly string[] {
  if (configured) return configured;
  if (listed && listed.length > 0) return listed;
  return wellKnownCaaIdentities(directoryUrl);
}
