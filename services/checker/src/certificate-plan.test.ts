import { CERTIFICATE_ISSUING_MESSAGE, CERTIFICATE_WAITING_MESSAGE, type CheckOutcome } from '@cds/core';
import type { CertificateRow } from '@cds/data';
import { planCertificate } from './certificate-plan';

const now = new Date('2026-06-01T00:00:00Z');
const passing: CheckOutcome = { status: 'passing', errorCode: null, message: null };
const failing: CheckOutcome = { status: 'failing', errorCode: 'cname_not_found', message: 'no CNAME' };
const cert = (notAfter: Date): CertificateRow => ({
  hostname: 'shop.example.com', domainId: 'd', issuer: 'acme', pemChain: 'pem', keySealed: 'k', notBefore: new Date(0), notAfter, createdAt: new Date(0),
});
const valid = cert(new Date(now.getTime() + 60 * 86_400_000));
const expired = cert(new Date(now.getTime() - 1000));

describe('planCertificate', () => {
  test('without both DNS checks: waits, or judges the certificate it has, and never issues', () => {
    expect(planCertificate(passing, failing, null, false, now)).toEqual({ outcome: { status: 'pending', errorCode: null, message: CERTIFICATE_WAITING_MESSAGE }, issue: false, notAfter: null });
    expect(planCertificate(failing, passing, valid, true, now)).toEqual({ outcome: passing, issue: false, notAfter: null });
    expect(planCertificate(failing, failing, expired, true, now)).toMatchObject({ outcome: { status: 'failing', errorCode: 'certificate_expired' }, issue: false });
  });

  test('with both DNS checks: issues when there is none or a renewal is due', () => {
    expect(planCertificate(passing, passing, null, false, now)).toEqual({ outcome: { status: 'pending', errorCode: null, message: CERTIFICATE_ISSUING_MESSAGE }, issue: true, notAfter: null });
    expect(planCertificate(passing, passing, valid, false, now)).toEqual({ outcome: passing, issue: false, notAfter: valid.notAfter });
    expect(planCertificate(passing, passing, valid, true, now)).toEqual({ outcome: passing, issue: true, notAfter: valid.notAfter });
    expect(planCertificate(passing, passing, expired, true, now)).toMatchObject({ outcome: { status: 'failing', errorCode: 'certificate_expired' }, issue: true });
  });
});
