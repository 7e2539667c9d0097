import { FREE_PLAN_LIMITS, LIMIT_KEYS, PLANS, resolveLimits } from './limits';

describe('plan limits', () => {
  it('gives the Free defaults of the contract', () => {
    expect(FREE_PLAN_LIMITS).toEqual({
      live_domains: 25,
      api_requests_per_minute: 60,
      proxied_requests_per_minute: 600,
      proxied_requests_per_second: 100,
      credentials: 1,
      webhook_subscriptions: 10,
      fair_use_bytes_per_month: 10000000000,
    });
    expect(PLANS.free).toBe(FREE_PLAN_LIMITS);
    expect(Object.keys(FREE_PLAN_LIMITS)).toEqual([...LIMIT_KEYS]);
    expect(Object.isFrozen(FREE_PLAN_LIMITS)).toBe(true);
  });

  it('resolves the plan alone to a copy of its limits', () => {
    const limits = resolveLimits('free');
    expect(limits).toEqual(FREE_PLAN_LIMITS);
    limits.live_domains = 1;
    expect(FREE_PLAN_LIMITS.live_domains).toBe(25);
  });

  it('lays overrides over the plan key by key and ignores unknown keys', () => {
    const overrides = { live_domains: 100, credentials: undefined, bogus: 5 } as Parameters<typeof resolveLimits>[1];
    expect(resolveLimits('free', overrides)).toEqual({ ...FREE_PLAN_LIMITS, live_domains: 100 });
    expect(resolveLimits('free', { webhook_subscriptions: 0 }).webhook_subscriptions).toBe(0);
  });
});
