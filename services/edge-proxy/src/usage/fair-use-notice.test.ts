import { fairUseMessage, fairUseNoticeKey, formatBytes, isOverFairUse, monthStartDay, utcDay, utcMonth } from './fair-use-notice';

describe('UTC days and months', () => {
  it('uses the UTC calendar, not the local one', () => {
    const lateOnTheLastDay = new Date('2026-01-31T23:59:59.999Z');
    expect(utcDay(lateOnTheLastDay)).toBe('2026-01-31');
    expect(utcMonth(lateOnTheLastDay)).toBe('2026-01');
    expect(monthStartDay(lateOnTheLastDay)).toBe('2026-01-01');
    const firstInstantOfMarch = new Date('2028-03-01T00:00:00.000Z');
    expect(utcDay(firstInstantOfMarch)).toBe('2028-03-01');
    expect(monthStartDay(firstInstantOfMarch)).toBe('2028-03-01');
    expect(monthStartDay(new Date('2026-12-15T12:00:00+05:00'))).toBe('2026-12-01');
  });
});

describe('isOverFairUse', () => {
  it('is passed only by strictly more bytes than the limit', () => {
    expect(isOverFairUse(0, 0)).toBe(false);
    expect(isOverFairUse(999, 1000)).toBe(false);
    expect(isOverFairUse(1000, 1000)).toBe(false);
    expect(isOverFairUse(1001, 1000)).toBe(true);
    expect(isOverFairUse(12_000_000_000, 10_000_000_000)).toBe(true);
  });
});

describe('fairUseNoticeKey', () => {
  it('is one key per application and month', () => {
    expect(fairUseNoticeKey('0b3e8a7c-1111-4222-8333-944445555666', '2026-11')).toBe('fair_use_notice:0b3e8a7c-1111-4222-8333-944445555666:2026-11');
    expect(fairUseNoticeKey('a', '2026-11')).not.toBe(fairUseNoticeKey('a', '2026-12'));
    expect(fairUseNoticeKey('a', '2026-11')).not.toBe(fairUseNoticeKey('b', '2026-11'));
  });
});

describe('formatBytes', () => {
  it('uses decimal units with at most two decimals', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1000)).toBe('1 KB');
    expect(formatBytes(1_536_000)).toBe('1.54 MB');
    expect(formatBytes(10_000_000_000)).toBe('10 GB');
    expect(formatBytes(12_345_678_901_234)).toBe('12.35 TB');
  });
});

describe('fairUseMessage', () => {
  const message = fairUseMessage({ slug: 'shop', name: 'Shop Inc', month: '2026-11', bytesUsed: 12_500_000_000, limitBytes: 10_000_000_000 });

  it('names the application and the month in the subject', () => {
    expect(message.subject).toBe('Fair-use notice for shop: 12.5 GB served in 2026-11');
  });

  it('states the bytes used, the limit, the month, and that nothing is switched off', () => {
    expect(message.text).toContain('shop (Shop Inc)');
    expect(message.text).toContain('12.5 GB (12500000000 bytes)');
    expect(message.text).toContain('10 GB (10000000000 bytes) per month');
    expect(message.text).toContain('in 2026-11 (UTC)');
    expect(message.text).toContain('Nothing has been switched off');
  });
});
