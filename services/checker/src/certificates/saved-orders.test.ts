import { replacedFingerprint, SAVED_ORDER_MAX_AGE_MS, usableOrder, type SavedOrder } from './saved-orders';

const NOW = Date.parse('2026-11-26T08:00:00Z');
const order = (over: Partial<SavedOrder> = {}): SavedOrder => ({ url: 'https://ca/order/1', keyPem: 'KEY', replaces: null, savedAt: NOW - 60_000, ...over });

describe('usableOrder', () => {
  it('carries on a recent first order for a first certificate', () => {
    expect(usableOrder(order(), null, NOW)).toEqual(order());
  });

  it('carries on a renewal order only for the certificate it replaces', () => {
    const renewal = order({ replaces: replacedFingerprint('CHAIN-A') });
    expect(usableOrder(renewal, 'CHAIN-A', NOW)).toEqual(renewal);
    expect(usableOrder(renewal, 'CHAIN-B', NOW)).toBeNull();
    expect(usableOrder(renewal, null, NOW)).toBeNull();
    // A first order is no renewal's order.
    expect(usableOrder(order(), 'CHAIN-A', NOW)).toBeNull();
  });

  it('does not carry on an order saved a day ago or more, or saved in the future', () => {
    expect(usableOrder(order({ savedAt: NOW - SAVED_ORDER_MAX_AGE_MS }), null, NOW)).toBeNull();
    expect(usableOrder(order({ savedAt: NOW - SAVED_ORDER_MAX_AGE_MS + 1 }), null, NOW)).not.toBeNull();
    expect(usableOrder(order({ savedAt: NOW + 1 }), null, NOW)).toBeNull();
  });

  it('has nothing to carry on without a saved order', () => {
    expect(usableOrder(null, null, NOW)).toBeNull();
  });
});

describe('replacedFingerprint', () => {
  it('is null for a first certificate and differs between chains', () => {
    expect(replacedFingerprint(null)).toBeNull();
    expect(replacedFingerprint('A')).not.toBe(replacedFingerprint('B'));
    expect(replacedFingerprint('A')).toBe(replacedFingerprint('A'));
  });
});
