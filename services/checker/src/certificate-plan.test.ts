import { ACME_BUDGET_WAIT_PREFIX, CERTIFICATE_ISSUING_MESSAGE, CERTIFICATE_WAITING_MESSAGE, type CheckOutcome } from '@cds/core';
import type { CertificateRow } from '@cds/data';
import { planCertificate, reissueReason } from './certificate-plan';

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

  test('a first certificate waiting for ACME order budget keeps saying so while its next try asks for a slot', () => {
    const waiting = { status: 'pending' as const, message: `${ACME_BUDGET_WAIT_PREFIX}: 6 orders this hour of the deployment's 6; the next hour starts at 2026-06-01T01:00:00.000Z.` };
    expect(planCertificate(passing, passing, null, false, now, waiting)).toEqual({ outcome: { status: 'pending', errorCode: null, message: waiting.message }, issue: true, notAfter: null });
    // Any other earlier state says the certificate is being issued.
    for (const previous of [null, { status: 'pending' as const, message: CERTIFICATE_WAITING_MESSAGE }, { status: 'failing' as const, message: `${ACME_BUDGET_WAIT_PREFIX}: not pending` }]) {
      expect(planCertificate(passing, passing, null, false, now, previous).outcome.message).toBe(CERTIFICATE_ISSUING_MESSAGE);
    }
    // A renewal judges the certificate it has, whatever the check said.
    expect(planCertificate(passing, passing, valid, true, now, waiting)).toEqual({ outcome: passing, issue: true, notAfter: valid.notAfter });
  });
});

describe('planCertificate with the challenge delegated (DECISIONS §13)', () => {
  test('ownership passing and the _acme-challenge CNAME in place: issues while routing still fails', () => {
    expect(planCertificate(passing, failing, null, false, now, null, true)).toEqual({ outcome: { status: 'pending', errorCode: null, message: CERTIFICATE_ISSUING_MESSAGE }, issue: true, notAfter: null });
    // Renewed the same way; no traffic reaches it yet, so nothing to watch expire.
    expect(planCertificate(passing, failing, valid, true, now, null, true)).toEqual({ outcome: passing, issue: true, notAfter: null });
    expect(planCertificate(passing, passing, valid, false, now, null, true)).toEqual({ outcome: passing, issue: false, notAfter: valid.notAfter });
  });

  test('ownership failing: waits as before, delegated or not', () => {
    expect(planCertificate(failing, failing, null, false, now, null, true)).toEqual({ outcome: { status: 'pending', errorCode: null, message: CERTIFICATE_WAITING_MESSAGE }, issue: false, notAfter: null });
  });
});

describe('reissueReason', () => {
  const STAGING = 'https://acme-staging-v02.api.letsencrypt.org/directory';
  const PRODUCTION = 'https://acme-v02.api.letsencrypt.org/directory';
  const acme = { issuer: 'acme' as const, directories: [PRODUCTION] };

  test('a certificate of the configured issuer and directory is not issued again before its renewal', () => {
    expect(reissueReason({ ...valid, directoryUrl: PRODUCTION }, acme)).toBeNull();
    expect(reissueReason({ ...valid, issuer: 'internal' }, { issuer: 'internal', directories: [PRODUCTION] })).toBeNull();
    // Kept without its directory (issued before directories were kept): not judged by it.
    expect(reissueReason(valid, acme)).toBeNull();
  });

  test('asked for by the operator, from another issuer, or from a directory no longer configured: issued again', () => {
    expect(reissueReason({ ...valid, directoryUrl: PRODUCTION, renewRequestedAt: now }, acme)).toBe('requested');
    expect(reissueReason({ ...valid, issuer: 'internal' }, acme)).toBe('issuer_changed');
    expect(reissueReason({ ...valid, directoryUrl: PRODUCTION }, { issuer: 'internal', directories: [PRODUCTION] })).toBe('issuer_changed');
    expect(reissueReason({ ...valid, directoryUrl: STAGING }, acme)).toBe('directory_changed');
    expect(reissueReason({ ...valid, directoryUrl: STAGING }, { issuer: 'acme', directories: [PRODUCTION, STAGING] })).toBeNull();
  });
});
