import { eventTimestamp, isoTimestamp } from './time';

describe('timestamps', () => {
  const instant = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

  it('writes resource timestamps in UTC with milliseconds and Z', () => {
    expect(isoTimestamp(instant)).toBe('2026-01-02T03:04:05.678Z');
    expect(isoTimestamp(new Date(Date.UTC(2026, 0, 2)))).toBe('2026-01-02T00:00:00.000Z');
    expect(isoTimestamp(null)).toBeNull();
  });

  it('writes event timestamps with +00:00 for the same instant', () => {
    const written = eventTimestamp(instant);
    expect(written).toBe('2026-01-02T03:04:05.678+00:00');
    expect(new Date(written).getTime()).toBe(instant.getTime());
  });
});
