import { WEBHOOK_COOLING_AFTER_FAILURES } from '@cds/core';

/**
 * A cooling subscription in SQL (DECISIONS §10), as the partial index
 * ix_webhook_subscriptions_cooling states it: SQLite uses a partial index only
 * for a query that repeats its condition, a literal and not a parameter.
 */
export const COOLING = `consecutive_failures >= ${WEBHOOK_COOLING_AFTER_FAILURES}`;
