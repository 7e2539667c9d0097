import { renewalAfter, renewalDue } from './certificate-renewal';

const DAY = 86_400_000;
const issued = new Date('2027-03-01T00:00:00Z');
const lifetime = (days: number) => ({ notBefore: issued, notAfter: new Date(issued.getTime() + days * DAY) });
const at = (days: number) => new Date(issued.getTime() + days * DAY);

describe('renewal by lifetime without a CA window', () => {
  test.each([
    [90, 60],
    [45, 30],
    [6, 4],
  ])('a %i-day certificate is renewed after %i days, not before', (days, after) => {
    const certificate = lifetime(days);
    expect(renewalAfter(certificate, null)).toEqual(at(after));
    expect(renewalDue(certificate, new Date(at(after).getTime() - 1), null)).toBe(false);
    expect(renewalDue(certificate, at(after), null)).toBe(true);
    expect(renewalDue(certificate, at(days + 1), null)).toBe(true);
  });

  test('no fixed 30 days: a 45-day certificate is not due 30 days before expiry, a 6-day one not at once', () => {
    expect(renewalDue(lifetime(45), at(15), null)).toBe(false);
    expect(renewalDue(lifetime(6), at(1), null)).toBe(false);
  });
});

describe('renewal inside the CA window', () => {
  test('a window that has begun renews, one in the future waits, whatever the lifetime says', () => {
    const certificate = lifetime(90);
    expect(renewalDue(certificate, at(20), { start: at(19), end: at(21) })).toBe(true);
    expect(renewalDue(certificate, at(70), { start: at(75), end: at(77) })).toBe(false);
    expect(renewalAfter(certificate, { start: at(75), end: at(77) })).toEqual(at(75));
  });
});
