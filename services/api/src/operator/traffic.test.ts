import { utcDaysEndingAt } from './traffic';

describe('utcDaysEndingAt', () => {
  it('ends with the UTC day of `now`, whatever the local time zone says', () => {
    expect(utcDaysEndingAt(new Date('2026-03-01T23:59:59.999Z'), 1)).toEqual(['2026-03-01']);
    expect(utcDaysEndingAt(new Date('2026-03-02T00:00:00.000Z'), 1)).toEqual(['2026-03-02']);
  });

  it('goes back across months and leap days, oldest first', () => {
    expect(utcDaysEndingAt(new Date('2024-03-01T12:00:00Z'), 3)).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(utcDaysEndingAt(new Date('2026-01-01T00:30:00Z'), 2)).toEqual(['2025-12-31', '2026-01-01']);
  });

  it('gives exactly `days` consecutive days', () => {
    const days = utcDaysEndingAt(new Date('2026-06-15T08:00:00Z'), 400);
    expect(days).toHaveLength(400);
    expect(new Set(days).size).toBe(400);
    expect(days[0]).toBe('2025-05-12');
    expect(days[399]).toBe('2026-06-15');
  });
});
