import { TestClock } from '../support/test-clock';

describe('TestClock', () => {
  it('follows real time until told to jump', () => {
    const clock = new TestClock();
    expect(Math.abs(clock.epochMs() - Date.now())).toBeLessThan(50);
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(50);
  });

  it('jumps forward to the start of the next window aligned to the epoch, never back', () => {
    const clock = new TestClock();
    const before = clock.epochMs();
    const start = clock.startWindow(60).getTime();
    expect(start).toBeGreaterThan(before);
    expect(start % 60_000).toBeLessThan(50);
    expect(start - before).toBeLessThanOrEqual(60_000);
    const hour = clock.startWindow(3600).getTime();
    expect(hour).toBeGreaterThan(start);
    expect(hour % 3_600_000).toBeLessThan(50);
  });
});
