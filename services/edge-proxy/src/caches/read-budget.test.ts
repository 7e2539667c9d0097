import { ReadBudget } from './read-budget';

describe('ReadBudget', () => {
  it('allows a burst, then reads at the rate, never more than the burst saved up', () => {
    let now = 0;
    const budget = new ReadBudget({ perSecond: 5, burst: 3, now: () => now });
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    now += 200;
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 60_000;
    let allowed = 0;
    for (let i = 0; i < 100; i += 1) if (budget.take()) allowed += 1;
    expect(allowed).toBe(3);
  });
});
