// The ACME order budget (DECISIONS §10): at most ACME_ORDERS_PER_HOUR orders
// per clock hour from the deployment and ACME_ORDERS_PER_APPLICATION_PER_HOUR
// from each application. Renewals go before first certificates when the
// budget is short: a first certificate never takes a slot that a renewal due
// could still use this hour. What is decided here needs no I/O; the checker
// counts the orders in the database, one conditional increment per scope.

export const ACME_ORDER_KINDS = { renewal: 'renewal', first: 'first' } as const;
export type AcmeOrderKind = (typeof ACME_ORDER_KINDS)[keyof typeof ACME_ORDER_KINDS];

export const ACME_BUDGET_SCOPES = { deployment: 'deployment', application: 'application' } as const;
export type AcmeBudgetScope = (typeof ACME_BUDGET_SCOPES)[keyof typeof ACME_BUDGET_SCOPES];

/** The budget counts orders per clock hour (fixed windows aligned to the epoch). */
export const ACME_BUDGET_WINDOW_SECONDS = 3600;

export interface AcmeBudgetLimits {
  /** ACME_ORDERS_PER_HOUR */
  perHour: number;
  /** ACME_ORDERS_PER_APPLICATION_PER_HOUR */
  perApplicationPerHour: number;
}

/** One application's renewals due now and the orders it placed this hour. */
export interface ApplicationRenewals {
  applicationId: string;
  due: number;
  ordered: number;
}

/** The counts an order of one kind may raise each scope's counter to, and what is kept for renewals. */
export interface OrderCaps {
  /** The application's counter must be below this to take a slot. */
  application: number;
  /** The deployment's counter must be below this to take a slot. */
  deployment: number;
  /** Slots kept for renewals: the application's own, and the deployment's (all applications'). */
  heldForRenewals: { application: number; deployment: number };
}

/** Slots an application's renewals due can still use this hour (its own cap bounds them). */
function renewalsThisHour(app: ApplicationRenewals, limits: AcmeBudgetLimits): number {
  return Math.min(app.due, Math.max(0, limits.perApplicationPerHour - app.ordered));
}

/**
 * What an order may take. A renewal may use the whole budget. A first
 * certificate may not use the slots that renewals due can still take this
 * hour: its application's own renewals within its cap, and every
 * application's across the deployment. Renewals that their application's cap
 * stops this hour hold nothing back, so one application's renewals cannot
 * starve another's first certificates.
 */
export function orderCaps(limits: AcmeBudgetLimits, kind: AcmeOrderKind, applicationId: string, renewals: readonly ApplicationRenewals[]): OrderCaps {
  if (kind === ACME_ORDER_KINDS.renewal) {
    return { application: limits.perApplicationPerHour, deployment: limits.perHour, heldForRenewals: { application: 0, deployment: 0 } };
  }
  const own = renewals.find((app) => app.applicationId === applicationId);
  const application = own ? renewalsThisHour(own, limits) : 0;
  const deployment = renewals.reduce((sum, app) => sum + renewalsThisHour(app, limits), 0);
  return {
    application: Math.max(0, limits.perApplicationPerHour - application),
    deployment: Math.max(0, limits.perHour - deployment),
    heldForRenewals: { application, deployment },
  };
}

/** Why an order waits: the scope whose counter is full, its count this hour, its cap, the slots kept for renewals, and when the hour ends. */
export interface AcmeBudgetRefusal {
  scope: AcmeBudgetScope;
  ordered: number;
  limit: number;
  heldForRenewals: number;
  resetAt: Date;
}

/** The start of every certificate check message that says the certificate waits for budget. */
export const ACME_BUDGET_WAIT_PREFIX = 'The certificate waits for ACME order budget';

/** The certificate check's message while the certificate waits for budget (the check stays `pending`). */
export function acmeBudgetWaitMessage(refusal: AcmeBudgetRefusal): string {
  const whose = refusal.scope === ACME_BUDGET_SCOPES.application ? "this application's" : "the deployment's";
  const held = refusal.heldForRenewals > 0 ? `, ${refusal.heldForRenewals} kept for renewals` : '';
  const orders = refusal.ordered === 1 ? 'order' : 'orders';
  return `${ACME_BUDGET_WAIT_PREFIX}: ${refusal.ordered} ${orders} this hour of ${whose} ${refusal.limit}${held}; the next hour starts at ${refusal.resetAt.toISOString()}.`;
}
