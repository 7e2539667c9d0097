// Runs due delivery attempts. The schedule lives in the database
// (`next_attempt_at`): the worker leases due deliveries, sends them and writes
// each outcome with the next due time (group commit; the attempt's slot is
// free once its HTTP exchange ends). A lease outlives the wait for a free
// slot plus the longest attempt, so no other replica takes a delivery while
// this one holds it; a dispatcher that dies loses only its leases, which fall
// due again when they run out. A restart loses nothing.
// Sending is shared between subscriptions and applications (DECISIONS §10):
// each lease takes every due subscription's earliest deliveries, at most twice
// its slots (what runs and as many waiting), and of one application's
// subscriptions together at most twice the application's slots (half the
// worker's); the waiting line serves subscriptions in turn (FairQueue), at most
// WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION running, one while the subscription is
// cooling, and at most half the worker's slots for one application.
import { randomUUID } from 'node:crypto';
import {
  errorMessage, decryptSecret, GroupCommit, SEAL_PURPOSES, applicationSlots, isCooling, NOT_COOLING, retryDelayAfter, WakeableLoop, type CoolingState, type DataKeys, type DeliveryState,
} from '@cds/core';
import type { DataStore, WebhookAttemptResult, WebhookDeliveryRow, WebhookSecretRow, WebhookSubscriptionRow } from '@cds/data';
import type { Logger } from '@cds/logging';
import { countAttempt } from './dispatcher-metrics';
import type { FanOutLease, FanOutResult } from './fan-out';
import { FairQueue, type DeferralReason } from './fair-queue';
import { sendDelivery, type AttemptOutcome, type SendOptions } from './send-delivery';

/** Beyond the attempt timeouts: time to write the outcome before the lease may be taken over. */
const LEASE_MARGIN_MS = 10_000;
/** Outcomes written per transaction at most. */
const MAX_OUTCOME_BATCH = 200;

export interface DeliveryWorkerOptions {
  store: DataStore;
  send: SendOptions;
  encryptionKey: DataKeys;
  retrySchedule: readonly number[];
  /** Attempts running at once; as many more are leased ahead, waiting for a slot. */
  concurrency: number;
  /** Attempts of one subscription running at once (default: `concurrency`, no cap of its own). */
  maxInFlightPerSubscription?: number;
  /** Leased deliveries that waited for their subscription's turn while a slot was free (the fairness metric). */
  onDeferred?: (count: number, reason: DeferralReason) => void;
  /** Look for due deliveries at least this often (other replicas' retries, API replays). */
  pollIntervalMs: number;
  logger: Logger;
  now: () => Date;
}

interface Leased {
  delivery: WebhookDeliveryRow;
  leaseId: string;
  subscription: WebhookSubscriptionRow | undefined;
  secrets: string[];
  /** Why a signing secret of the subscription did not open (the attempt's error when none did). */
  unreadable?: string;
}

export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** Outcomes of ended attempts still being written. */
  private readonly recording = new Set<Promise<void>>();
  /** Give-backs still being written. */
  private readonly givingBack = new Set<Promise<void>>();
  /** Leased deliveries waiting for a free slot, by subscription. */
  private readonly queue: FairQueue<Leased>;
  /** Deliveries of one subscription held at most: as many waiting as may run. */
  private readonly perSubscription: number;
  /** Deliveries of one application's subscriptions together held at most: as many waiting as may run. */
  private readonly perApplication: number;
  private readonly outcomes: GroupCommit<WebhookAttemptResult, boolean>;
  /** Passes one at a time: at the poll interval, when a delivery falls due, and when kicked. */
  private readonly loop: WakeableLoop<void>;
  private stopped = false;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    const maxInFlight = opts.maxInFlightPerSubscription ?? opts.concurrency;
    const maxInFlightPerApplication = applicationSlots(opts.concurrency);
    this.queue = new FairQueue<Leased>({
      maxInFlight,
      maxInFlightPerApplication,
      applicationOf: (leased) => leased.delivery.applicationId,
      ...(opts.onDeferred ? { onDeferred: opts.onDeferred } : {}),
    });
    this.perSubscription = 2 * maxInFlight;
    this.perApplication = 2 * maxInFlightPerApplication;
    this.outcomes = new GroupCommit(async (results) => {
      const written = new Set(await opts.store.run((r) => r.webhookDeliveryQueue.recordAttempts(results)));
      return results.map((result) => written.has(result.attempt.deliveryId));
    }, MAX_OUTCOME_BATCH);
    this.loop = new WakeableLoop({
      pass: () => this.pass(),
      intervalMs: opts.pollIntervalMs,
      onFailure: (err) => opts.logger.error('webhook delivery pass failed', { error: errorMessage(err) }),
    });
  }

  start(): void {
    this.loop.kick();
  }

  /** Look for due deliveries now (new deliveries were written, or a slot freed). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops taking deliveries, gives back the ones leased but not started, and waits for the attempts running. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    this.giveBack(this.queue.drain());
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.recording]);
    await Promise.allSettled([...this.givingBack]);
  }

  /**
   * Leased deliveries this worker will not send, due at once for any
   * dispatcher (then it looks for due ones again); if this fails, the leases
   * simply run out.
   */
  private giveBack(unsent: Leased[]): void {
    if (unsent.length === 0) return;
    const leases = unsent.map(({ delivery, leaseId }) => ({ deliveryId: delivery.id, leaseId }));
    const at = this.opts.now();
    const writing = this.opts.store
      .transaction((r) => r.webhookDeliveryQueue.releaseLeases(leases, at))
      .then(() => this.kick())
      .catch((err: unknown) => {
        this.opts.logger.warn('could not give back leased webhook deliveries', { count: leases.length, error: errorMessage(err) });
      })
      .finally(() => this.givingBack.delete(writing));
    this.givingBack.add(writing);
  }

  /** Queues leased deliveries by subscription; a cooling one keeps one, the others are given back. */
  private enqueue(leased: Leased[], states: ReadonlyMap<string, CoolingState>, readAt: number): void {
    const bySubscription = new Map<string, Leased[]>();
    for (const item of leased) {
      const list = bySubscription.get(item.delivery.subscriptionId) ?? [];
      list.push(item);
      bySubscription.set(item.delivery.subscriptionId, list);
    }
    const back: Leased[] = [];
    for (const [subscriptionId, items] of bySubscription) back.push(...this.queue.add(subscriptionId, items, states.get(subscriptionId) ?? NOT_COOLING, readAt));
    this.giveBack(back);
  }

  private async pass(): Promise<void> {
    this.startReady();
    await this.claim();
    this.startReady();
  }

  private startReady(): void {
    while (!this.stopped && this.inFlight.size < this.opts.concurrency) {
      const next = this.queue.take();
      if (!next) return;
      // The slot is free once the HTTP exchange ends; the outcome is written
      // meanwhile (group commit), and reads vouch for it once that has ended
      // (FairQueue.mark). The lease covers the write.
      const run = this.send(next.item).catch(() => null).then((sent) => {
        const { back, written } = this.queue.release(next.subscriptionId, sent?.outcome.delivered ?? null);
        this.giveBack(back);
        if (!sent) return;
        const recording = this.record(sent).finally(() => {
          written();
          this.recording.delete(recording);
        });
        this.recording.add(recording);
      });
      this.inFlight.add(run);
      void run.finally(() => {
        this.inFlight.delete(run);
        this.kick();
      });
    }
  }

  /** How many more deliveries this worker takes now: the slots, and as many waiting. */
  private room(): number {
    return this.stopped ? 0 : Math.max(0, 2 * this.opts.concurrency - this.inFlight.size - this.queue.waiting);
  }

  /** Leases due deliveries until the slots and the waiting line are full, or none is due. */
  private async claim(): Promise<void> {
    const { store, concurrency } = this.opts;
    while (!this.stopped) {
      // Lease ahead only once what could start is down to half, then in one batch.
      if (this.queue.runnable() > concurrency / 2) return;
      const room = this.room();
      if (room <= 0) return;
      const now = this.opts.now();
      const leaseId = randomUUID();
      const leaseUntil = this.leaseEnd(now);
      const readAt = this.queue.mark();
      const shares = {
        perSubscription: this.perSubscription, held: this.queue.held(),
        perApplication: this.perApplication, heldByApplication: this.queue.heldByApplication(),
      };
      const claimed = await store.run((r) => r.webhookDeliveryQueue.claimDue(now, room, leaseId, leaseUntil, shares));
      if (claimed.length === 0) return;
      const { leased, states } = await this.withTargets(claimed, leaseId, now);
      this.enqueue(leased, states, readAt);
      this.startReady();
      // Fewer than asked: nothing more is due, or what is due waits for its subscription's turn.
      if (claimed.length < room) return;
    }
  }

  /**
   * A lease for new deliveries the fan-out writes: how many this worker can
   * take now, of each subscription (none of a cooling one: the next lease gives
   * its one turn) and of each application, and until when it holds them.
   */
  leaseForNew(): FanOutLease {
    const now = this.opts.now();
    const held = this.queue.held();
    const heldByApplication = this.queue.heldByApplication();
    return {
      leaseId: randomUUID(),
      leaseUntil: this.leaseEnd(now),
      room: this.room(),
      roomOf: (subscriptionId, state) => (isCooling(state) ? 0 : Math.max(0, this.perSubscription - (held.get(subscriptionId) ?? 0))),
      roomOfApplication: (applicationId) => Math.max(0, this.perApplication - (heldByApplication.get(applicationId) ?? 0)),
      readAt: this.queue.mark(),
    };
  }

  /** Deliveries the fan-out wrote leased to this worker: sent without being read back. */
  adopt(lease: FanOutLease, leased: FanOutResult['leased']): void {
    if (leased.deliveries.length === 0) return;
    this.enqueue(this.targeted(leased.deliveries, lease.leaseId, leased.subscriptions, leased.secrets), leased.coolingStates, lease.readAt ?? this.queue.mark());
    this.startReady();
  }

  private leaseEnd(now: Date): Date {
    return new Date(now.getTime() + 2 * this.opts.send.timeoutMs + LEASE_MARGIN_MS);
  }

  private async withTargets(deliveries: WebhookDeliveryRow[], leaseId: string, now: Date): Promise<{ leased: Leased[]; states: Map<string, CoolingState> }> {
    const ids = [...new Set(deliveries.map((d) => d.subscriptionId))];
    const [subscriptions, secrets, states] = await this.opts.store.run(async (r) => [
      await r.webhookSubscriptions.findMany(ids),
      await r.webhookSubscriptions.signingSecrets(ids, now),
      await r.webhookSubscriptions.coolingStates(ids),
    ] as const);
    return { leased: this.targeted(deliveries, leaseId, subscriptions, secrets), states };
  }

  private targeted(deliveries: WebhookDeliveryRow[], leaseId: string, subscriptions: WebhookSubscriptionRow[], secrets: WebhookSecretRow[]): Leased[] {
    const bySubscription = new Map<string, string[]>();
    const unreadable = new Map<string, string>();
    for (const secret of secrets) {
      const list = bySubscription.get(secret.subscriptionId) ?? [];
      try {
        list.push(decryptSecret(secret.secretSealed, this.opts.encryptionKey, { purpose: SEAL_PURPOSES.webhookSecret, id: secret.id }));
      } catch (err) {
        // One row's fault (altered, or copied from another row): the subscription's other secrets still sign, and other subscriptions are untouched.
        unreadable.set(secret.subscriptionId, errorMessage(err));
        this.opts.logger.error('a webhook signing secret does not open', { subscription_id: secret.subscriptionId, secret_id: secret.id, error: errorMessage(err) });
      }
      bySubscription.set(secret.subscriptionId, list);
    }
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    return deliveries.map((delivery) => ({
      delivery, leaseId, subscription: byId.get(delivery.subscriptionId), secrets: bySubscription.get(delivery.subscriptionId) ?? [], unreadable: unreadable.get(delivery.subscriptionId),
    }));
  }

  /** One attempt's HTTP exchange; null when nothing was sent. */
  private async send({ delivery, leaseId, subscription, secrets, unreadable }: Leased): Promise<Sent | null> {
    // Revoked after the lease was taken: the revocation abandoned the delivery; send nothing.
    if (!subscription || subscription.status !== 'active') return null;
    const startedAt = this.opts.now();
    // Wall time for the histogram: `now` may be a test's clock.
    const started = performance.now();
    const outcome: AttemptOutcome =
      secrets.length === 0
        ? { delivered: false, statusCode: null, error: unreadable ?? 'the subscription has no signing secret' }
        : await sendDelivery(
            { url: subscription.url, eventId: delivery.eventId, eventType: delivery.eventType, payload: delivery.payload, secrets },
            this.opts.send,
          );
    const finishedAt = this.opts.now();
    const attempt = delivery.attempts + 1;
    const delay = outcome.delivered ? null : retryDelayAfter(attempt, this.opts.retrySchedule);
    const state: DeliveryState = outcome.delivered ? 'delivered' : delay === null ? 'abandoned' : 'pending';
    countAttempt(state, (performance.now() - started) / 1000);
    return { delivery, leaseId, outcome, attempt, state, startedAt, finishedAt, nextAttemptAt: delay === null ? null : new Date(finishedAt.getTime() + delay) };
  }

  /** An ended attempt's outcome and next due time, written through the group commit. */
  private async record({ delivery, leaseId, outcome, attempt, state, startedAt, finishedAt, nextAttemptAt }: Sent): Promise<void> {
    try {
      const written = await this.outcomes.add({
        leaseId,
        attempt: {
          id: randomUUID(), deliveryId: delivery.id, attempt, startedAt,
          durationMs: finishedAt.getTime() - startedAt.getTime(), statusCode: outcome.statusCode, error: outcome.error,
        },
        state,
        nextAttemptAt,
        deliveredAt: outcome.delivered ? finishedAt : null,
      });
      if (!written) this.opts.logger.warn('webhook attempt outcome dropped: its lease ran out', { delivery_id: delivery.id, attempt });
    } catch (err) {
      // The lease runs out and the attempt is made again: at least once, never lost.
      this.opts.logger.error('could not record a webhook attempt', { delivery_id: delivery.id, error: errorMessage(err) });
    }
    if (nextAttemptAt) this.loop.wakeIn(nextAttemptAt.getTime() - Date.now());
  }
}

/** An attempt whose HTTP exchange ended, its outcome not yet written. */
interface Sent {
  delivery: WebhookDeliveryRow;
  leaseId: string;
  outcome: AttemptOutcome;
  /** Its number (1 for the first) and the delivery's state after it. */
  attempt: number;
  state: DeliveryState;
  startedAt: Date;
  finishedAt: Date;
  /** Null when no attempt follows (delivered or abandoned). */
  nextAttemptAt: Date | null;
}
