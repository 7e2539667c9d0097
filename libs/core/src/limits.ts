// Plan limits (DECISIONS.md §4). An application stores its plan and its resolved
// limits: the plan's, with the operator's overrides laid over them.

export const LIMIT_KEYS = [
  'live_domains',
  'api_requests_per_minute',
  'proxied_requests_per_minute',
  'proxied_requests_per_second',
  'credentials',
  'webhook_subscriptions',
  'fair_use_bytes_per_month',
] as const;
export type LimitKey = (typeof LIMIT_KEYS)[number];
export type Limits = Record<LimitKey, number>;

export const FREE_PLAN_LIMITS: Readonly<Limits> = Object.freeze({
  live_domains: 25,
  api_requests_per_minute: 60,
  proxied_requests_per_minute: 600,
  proxied_requests_per_second: 100,
  credentials: 1,
  webhook_subscriptions: 10,
  fair_use_bytes_per_month: 10_000_000_000,
});

export const PLANS = Object.freeze({ free: FREE_PLAN_LIMITS });
export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];
export const DEFAULT_PLAN: PlanName = 'free';

/** The plan's limits with the application's overrides laid over them, key by key. */
export function resolveLimits(plan: PlanName, overrides: Partial<Limits> = {}): Limits {
  const limits: Limits = { ...PLANS[plan] };
  for (const key of LIMIT_KEYS) {
    const value = overrides[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}
