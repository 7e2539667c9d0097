import { orderFor, replacedFingerprint } from './saved-orders';

describe('orderFor', () => {
  it('carries on a first order for a first certificate', () => {
    expect(orderFor({ replaces: null }, null)).toBe(true);
  });

  it('carries on a renewal order only for the certificate it replaces', () => {
    const renewal = { replaces: replacedFingerprint('CHAIN-A') };
    expect(orderFor(renewal, 'CHAIN-A')).toBe(true);
    expect(orderFor(renewal, 'CHAIN-B')).toBe(false);
    expect(orderFor(renewal, null)).toBe(false);
    // A first order is no renewal's order.
    expect(orderFor({ replaces: null }, 'CHAIN-A')).toBe(false);
  });
});

describe('replacedFingerprint', () => {
  it('is null for a first certificate and differs between chains', () => {
    expect(replacedFingerprint(null)).toBeNull();
    expect(replacedFingerprint('A')).not.toBe(replacedFingerprint('B'));
    expect(replacedFingerprint('A')).toBe(replacedFingerprint('A'));
  });
});
