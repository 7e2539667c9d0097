// Who signs certificates (CERT_ISSUER, DECISIONS.md §1): an ACME CA, or a
// local CA kept in the database.

export const CERT_ISSUERS = ['acme', 'internal'] as const;
export type CertIssuer = (typeof CERT_ISSUERS)[number];
