// The ACME order budget kept in the database (rate_counters), so that every
// checker replica shares it: one counter per clock hour for the deployment
// and one per application. A slot is taken before an order is sent, by a
// conditional increment of each counter in one transaction: two checkers
// never both take the last slot, and a slot the deployment refuses is not
// kept by the application. What an order may take is libs/core acme-budget.ts.
import {
  ACME_BUDGET_SCOPES,
  ACME_BUDGET_WINDOW_SECONDS,
  ACME_ORDER_KINDS,
  acmeBudgetWaitMessage,
  orderCaps,
  type AcmeBudgetLimits,
  type AcmeBudgetRefusal,
  type AcmeOrderKind,
  type ApplicationRenewals,
  type OrderCaps,
} from '@cds/core';
import type { DataStore, Repositories } from '@cds/data';

/** The deployment's counter (the key the earlier deployment-wide cap used, so an upgrade keeps the hour's count). */
export const DEPLOYMENT_ORDERS_KEY = 'acme:orders';
export const applicationOrdersKey = (applicationId: string): string => `acme:orders:app:${applicationId}`;

/** The order waits: no slot is left this hour in one scope. Its message is the certificate check's. */
export class AcmeBudgetWait extends Error {
  constructor(readonly refusal: AcmeBudgetRefusal) {
    super(acmeBudgetWaitMessage(refusal));
    this.name = 'AcmeBudgetWait';
  }
}

export class AcmeOrderBudget {
  constructor(
    private readonly store: DataStore,
    readonly limits: AcmeBudgetLimits,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Takes a slot for one order of the application, or throws AcmeBudgetWait. */
  async reserve(applicationId: string, kind: AcmeOrderKind): Promise<void> {
    const now = this.now();
    const appKey = applicationOrdersKey(applicationId);
    // Counters only grow within an hour: one already full refuses at once, without the renewals query.
    const seen = await this.store.run((r) => r.rateCounters.peekMany([appKey, DEPLOYMENT_ORDERS_KEY], ACME_BUDGET_WINDOW_SECONDS, now));
    const full = this.fullScope(seen.get(appKey) ?? 0, seen.get(DEPLOYMENT_ORDERS_KEY) ?? 0);
    if (full) throw this.wait(full.scope, full.ordered, 0, now);

    const caps = orderCaps(this.limits, kind, applicationId, kind === ACME_ORDER_KINDS.first ? await this.renewalsDue(now) : []);
    const refusal = await this.store.transaction((r) => this.take(r, appKey, caps, now)).catch((err: unknown) => {
      if (err instanceof AcmeBudgetWait) return err;
      throw err;
    });
    if (refusal) throw refusal;
  }

  private fullScope(application: number, deployment: number): { scope: AcmeBudgetRefusal['scope']; ordered: number } | null {
    if (application >= this.limits.perApplicationPerHour) return { scope: ACME_BUDGET_SCOPES.application, ordered: application };
    if (deployment >= this.limits.perHour) return { scope: ACME_BUDGET_SCOPES.deployment, ordered: deployment };
    return null;
  }

  /**
   * Both counters, the application's first (the same order in every checker).
   * The deployment's refusal is thrown, so the transaction gives the
   * application's slot back; the application's is answered.
   */
  private async take(r: Repositories, appKey: string, caps: OrderCaps, now: Date): Promise<AcmeBudgetWait | null> {
    const app = await r.rateCounters.hitBelow(appKey, ACME_BUDGET_WINDOW_SECONDS, now, caps.application);
    if (!app.counted) return this.wait(ACME_BUDGET_SCOPES.application, app.count, caps.heldForRenewals.application, now, app.resetAt);
    const deployment = await r.rateCounters.hitBelow(DEPLOYMENT_ORDERS_KEY, ACME_BUDGET_WINDOW_SECONDS, now, caps.deployment);
    if (!deployment.counted) throw this.wait(ACME_BUDGET_SCOPES.deployment, deployment.count, caps.heldForRenewals.deployment, now, deployment.resetAt);
    return null;
  }

  /** Per application: the renewals due (two thirds of their lifetime passed) and the orders it placed this hour. */
  private async renewalsDue(now: Date): Promise<ApplicationRenewals[]> {
    return this.store.run(async (r) => {
      const due = await r.certificates.renewalsDue(now);
      if (due.length === 0) return [];
      const ordered = await r.rateCounters.peekMany(due.map((d) => applicationOrdersKey(d.applicationId)), ACME_BUDGET_WINDOW_SECONDS, now);
      return due.map((d) => ({ ...d, ordered: ordered.get(applicationOrdersKey(d.applicationId)) ?? 0 }));
    });
  }

  private wait(scope: AcmeBudgetRefusal['scope'], ordered: number, heldForRenewals: number, now: Date, resetAt?: Date): AcmeBudgetWait {
    const limit = scope === ACME_BUDGET_SCOPES.application ? this.limits.perApplicationPerHour : this.limits.perHour;
    const windowMs = ACME_BUDGET_WINDOW_SECONDS * 1000;
    return new AcmeBudgetWait({ scope, ordered, limit, heldForRenewals, resetAt: resetAt ?? new Date((Math.floor(now.getTime() / windowMs) + 1) * windowMs) });
  }
}
