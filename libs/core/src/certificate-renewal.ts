// When a certificate is renewed (DECISIONS §11): inside the CA's renewal
// window (ACME Renewal Information, RFC 9773) when it offers one, otherwise
// once two thirds of its lifetime have passed, whatever that lifetime is.

export interface RenewalWindow {
  start: Date;
  end: Date;
}

/** The fraction of a certificate's lifetime after which it is renewed without a CA's window. */
export const RENEWAL_LIFETIME_FRACTION = 2 / 3;

/** The time from which the certificate is renewed. */
export function renewalAfter(certificate: { notBefore: Date; notAfter: Date }, window: RenewalWindow | null): Date {
  if (window) return window.start;
  const lifetime = certificate.notAfter.getTime() - certificate.notBefore.getTime();
  return new Date(certificate.notBefore.getTime() + Math.floor(lifetime * RENEWAL_LIFETIME_FRACTION));
}

/** True when the certificate should be replaced at `now`. */
export function renewalDue(certificate: { notBefore: Date; notAfter: Date }, now: Date, window: RenewalWindow | null): boolean {
  return renewalAfter(certificate, window).getTime() <= now.getTime();
}
