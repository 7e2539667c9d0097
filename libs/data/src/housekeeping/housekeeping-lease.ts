// The one-runner-at-a-time guard of housekeeping: a lease row in the settings
// table, written only by compare-and-swap (setIfAbsent, replaceIf), so of
// several runners reading the same row exactly one replaces it. It works the
// same on PostgreSQL and SQLite, holds no connection or transaction for the
// length of a run, and survives a crashed holder: its claim lapses after
// HOUSEKEEPING_LEASE_MS without renewal. The row also records the last
// successful run, deployment-wide, so replicas do not repeat a run that
// another one did within the interval.
import { FREE_LEASE, leaseDecision, leaseText, parseLease, type HousekeepingLease, type HousekeepingSkip } from '@cds/core';
import type { DataStore } from '../data-store.types';

/** The settings key of the lease row. */
export const HOUSEKEEPING_LEASE_KEY = 'housekeeping_lease';

/** The holder's claim lapsed and another runner took the lease over. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';

  constructor() {
    super('the housekeeping lease was taken over by another runner');
  }
}

/** A held lease: the record as this runner wrote it (the value its next swap expects). */
export interface LeaseClaim {
  readonly lease: HousekeepingLease;
  readonly text: string;
}

export type LeaseAttempt =
  | { readonly taken: true; readonly claim: LeaseClaim }
  | { readonly taken: false; readonly reason: HousekeepingSkip; readonly lastSuccessAt: Date | null };

export class HousekeepingLeaseKeeper {
  constructor(
    private readonly store: DataStore,
    /** This runner's name in the row. */
    private readonly holder: string,
    private readonly leaseMs: number,
  ) {}

  /** Takes the lease when it is free (or lapsed) and a run is due. */
  async take(now: Date, intervalMs: number): Promise<LeaseAttempt> {
    const stored = await this.store.run((r) => r.settings.get(HOUSEKEEPING_LEASE_KEY));
    const current = stored === null ? FREE_LEASE : parseLease(stored);
    const decision = leaseDecision(current, now, intervalMs);
    if (!decision.take) return { taken: false, reason: decision.reason, lastSuccessAt: current.lastSuccessAt };
    const claim = this.claim({ ...current, holder: this.holder, until: this.until(now) });
    const written = await this.store.run((r) =>
      stored === null ? r.settings.setIfAbsent(HOUSEKEEPING_LEASE_KEY, claim.text) : r.settings.replaceIf(HOUSEKEEPING_LEASE_KEY, stored, claim.text),
    );
    // Another runner swapped the row first.
    return written ? { taken: true, claim } : { taken: false, reason: 'busy', lastSuccessAt: current.lastSuccessAt };
  }

  /** Extends the claim; throws LeaseLostError when it is no longer ours. */
  async renew(held: LeaseClaim, now: Date): Promise<LeaseClaim> {
    return this.swap(held, { ...held.lease, until: this.until(now) });
  }

  /**
   * Gives the lease back, recording the run when it succeeded (`run`: when it
   * started and ended). Throws LeaseLostError when it is no longer ours.
   */
  async release(held: LeaseClaim, run: { startedAt: Date; endedAt: Date } | null): Promise<LeaseClaim> {
    const recorded = run ? { lastRunAt: run.startedAt, lastSuccessAt: run.endedAt } : {};
    return this.swap(held, { ...held.lease, ...recorded, holder: null, until: null });
  }

  private async swap(held: LeaseClaim, next: HousekeepingLease): Promise<LeaseClaim> {
    const claim = this.claim(next);
    if (!(await this.store.run((r) => r.settings.replaceIf(HOUSEKEEPING_LEASE_KEY, held.text, claim.text)))) throw new LeaseLostError();
    return claim;
  }

  private claim(lease: HousekeepingLease): LeaseClaim {
    return { lease, text: leaseText(lease) };
  }

  private until(now: Date): Date {
    return new Date(now.getTime() + this.leaseMs);
  }
}
