// What the demo plays with: the names it registers, how long it waits for
// each thing, and the one variable it reads (DEMO_EXIT).

/** The customer's hostname the application registers. */
export const HOSTNAME = 'shop.demo-customer.test';
/** The application the operator creates. */
export const APPLICATION = { slug: 'demo-shop', name: 'Demo Shop' } as const;
/** The application's workspace the hostname belongs to: the assertion's `reference`. */
export const WORKSPACE = 'ws_42';
/** The origin's health path (verify and the origin check probe it). */
export const HEALTH_PATH = '/healthz';

/**
 * Check schedules short enough to watch (the defaults are minutes). Each is a
 * documented variable (docs/configuration.md), set as a user would set it.
 */
export const SHORT_SCHEDULES = {
  CHECK_SCHEDULE_PENDING: '2s',
  CHECK_INTERVAL_LIVE: '10s',
  CHECK_SCHEDULE_CONFIRM: '2s',
  CHECK_SCHEDULE_ATTENTION: '5s',
} as const;

/** How often the application polls GET /v1/domains/{id} while it waits. */
export const POLL_MS = 500;
/** The application's API requests per minute: room for that polling (the free plan allows 60). */
export const API_REQUESTS_PER_MINUTE = 600;

/** Bounded waits: each failure names what did not happen in time. */
export const WAIT_MS = {
  serviceStart: 60_000,
  firstCheck: 30_000,
  ready: 90_000,
  edge: 20_000,
  webhook: 30_000,
} as const;

export interface DemoSettings {
  /** DEMO_EXIT=1: stop everything and exit after the last step instead of running until Ctrl-C. */
  exitWhenDone: boolean;
}

export function readSettings(): DemoSettings {
  // The demo is a user's script, not a service: its one switch comes straight from its environment.
  // eslint-disable-next-line no-restricted-properties
  const exit = (process.env.DEMO_EXIT ?? '').trim().toLowerCase();
  return { exitWhenDone: exit !== '' && exit !== '0' && exit !== 'false' && exit !== 'no' };
}
