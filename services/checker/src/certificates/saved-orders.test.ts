import { orderDirectory, orderFor, replacedFingerprint } from './saved-orders';

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

describe('orderDirectory', () => {
  const [a, b] = ['https://ca-a.example/directory', 'https://ca-b.example:8443/dir'];

  it('is the directory kept with the order, while it is configured', () => {
    expect(orderDirectory({ url: 'https://ca-a.example/order/1', directoryUrl: b }, [a, b])).toBe(b);
    expect(orderDirectory({ url: 'https://ca-a.example/order/1', directoryUrl: 'https://gone.example/dir' }, [a, b])).toBeNull();
  });

  it('is the directory on the order URL\'s origin for an order saved before directories were kept', () => {
    expect(orderDirectory({ url: 'https://ca-b.example:8443/my-order/7', directoryUrl: null }, [a, b])).toBe(b);
    expect(orderDirectory({ url: 'https://ca-b.example/my-order/7', directoryUrl: null }, [a, b])).toBeNull();
    expect(orderDirectory({ url: 'not a url', directoryUrl: null }, [a])).toBeNull();
  });
});
