// Runs due delivery attempts. The schedule lives in the database
// (`next_attempt_at`): the worker leases due deliveries, sends them and writes
// each outcome with the next due time. A lease outlives the wait for a free
// slot plus the longest attempt, so no other replica takes a delivery while
// this one holds it; a dispatcher that dies loses only its leases, which fall
// due again when they run out. A restart loses nothing.
import { randomUUID } from 'node:crypto';
import { errorMessage, decryptSecret, GroupCommit, retryDelayAfter, type DeliveryState } from '@cds/core';
import type { DataStore, WebhookAttemptResult, WebhookDeliveryRow, WebhookSecretRow, WebhookSubscriptionRow } from '@cds/data';
import type { MessagingLogger } from '@cds/messaging';
import { countAttempt } from './dispatcher-metrics';
import type { FanOutLease, FanOutResult } from './fan-out';
import { sendDelivery, type AttemptOutcome, type SendOptions } from './send-delivery';

/** Beyond the attempt timeouts: time to write the outcome before the lease may be taken over. */
const LEASE_MARGIN_MS = 10_000;
/** Outcomes written per transaction at most. */
const MAX_OUTCOME_BATCH = 200;

export interface DeliveryWorkerOptions {
  store: DataStore;
  send: SendOptions;
  encryptionKey: Buffer;
  retrySchedule: readonly number[];
  /** Attempts running at once; as many more are leased ahead, waiting for a slot. */
  concurrency: number;
  /** Look for due deliveries at least this often (other replicas' retries, API replays). */
  pollIntervalMs: number;
  logger: MessagingLogger;
  now: () => Date;
}

interface Leased {
  delivery: WebhookDeliveryRow;
  leaseId: string;
  subscription: WebhookSubscriptionRow | undefined;
  secrets: string[];
}

export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  /** Leased deliveries waiting for a free slot. */
  private readonly ready: Leased[] = [];
  private readonly outcomes: GroupCommit<WebhookAttemptResult, boolean>;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private passing: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    this.outcomes = new GroupCommit(async (results) => {
      const written = new Set(await opts.store.run((r) => r.webhookDeliveries.recordAttempts(results)));
      return results.map((result) => written.has(result.attempt.deliveryId));
    }, MAX_OUTCOME_BATCH);
  }

  start(): void {
    this.wakeIn(0);
  }

  /** Look for due deliveries now (new deliveries were written, or a slot freed). */
  kick(): void {
    if (this.stopped) return;
    if (this.passing) this.again = true;
    else this.wakeIn(0);
  }

  /** Stops taking deliveries, gives back the ones leased but not started, and waits for the attempts running. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.passing;
    const unsent = this.ready.splice(0).map(({ delivery, leaseId }) => ({ deliveryId: delivery.id, leaseId }));
    if (unsent.length > 0) {
      const at = this.opts.now();
      // Due at once for another dispatcher; if this fails, the leases simply run out.
      await this.opts.store.transaction((r) => r.webhookDeliveries.releaseLeases(unsent, at)).catch((err: unknown) => {
        this.opts.logger.warn('could not give back leased webhook deliveries', { count: unsent.length, error: errorMessage(err) });
      });
    }
    await Promise.allSettled([...this.inFlight]);
  }

  private wakeIn(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.pass();
    }, Math.max(0, delayMs));
  }

  private pass(): void {
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = (async () => {
      do {
        this.again = false;
        try {
          this.startReady();
          await this.claim();
          this.startReady();
        } catch (err) {
          this.opts.logger.error('webhook delivery pass failed', { error: errorMessage(err) });
          break;
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.passing = null;
      this.wakeIn(this.opts.pollIntervalMs);
    });
  }

  private startReady(): void {
    while (!this.stopped && this.inFlight.size < this.opts.concurrency) {
      const next = this.ready.shift();
      if (!next) return;
      const run = this.attempt(next);
      this.inFlight.add(run);
      void run.finally(() => {
        this.inFlight.delete(run);
        this.kick();
      });
    }
  }

  /** Leases due deliveries until the slots and the waiting line are full, or none is due. */
  private async claim(): Promise<void> {
    const { store, concurrency } = this.opts;
    while (!this.stopped) {
      // Lease ahead only once the waiting line is down to half, then in one batch.
      if (this.ready.length > concurrency / 2) return;
      const room = 2 * concurrency - this.inFlight.size - this.ready.length;
      if (room <= 0) return;
      const now = this.opts.now();
      const leaseId = randomUUID();
      const leaseUntil = this.leaseEnd(now);
      const claimed = await store.run((r) => r.webhookDeliveries.claimDue(now, room, leaseId, leaseUntil));
      if (claimed.length === 0) return;
      this.ready.push(...(await this.withTargets(claimed, leaseId, now)));
      this.startReady();
      if (claimed.length < room) return;
    }
  }

  /** A lease for new deliveries the fan-out writes: how many this worker can take now, and until when it holds them. */
  leaseForNew(): FanOutLease {
    const now = this.opts.now();
    return { leaseId: randomUUID(), leaseUntil: this.leaseEnd(now), room: this.stopped ? 0 : Math.max(0, 2 * this.opts.concurrency - this.inFlight.size - this.ready.length) };
  }

  /** Deliveries the fan-out wrote leased to this worker: sent without being read back. */
  adopt(leaseId: string, leased: FanOutResult['leased']): void {
    if (leased.deliveries.length === 0) return;
    this.ready.push(...this.targeted(leased.deliveries, leaseId, leased.subscriptions, leased.secrets));
    this.startReady();
  }

  private leaseEnd(now: Date): Date {
    return new Date(now.getTime() + 2 * this.opts.send.timeoutMs + LEASE_MARGIN_MS);
  }

  private async withTargets(deliveries: WebhookDeliveryRow[], leaseId: string, now: Date): Promise<Leased[]> {
    const ids = [...new Set(deliveries.map((d) => d.subscriptionId))];
    const [subscriptions, secrets] = await this.opts.store.run(async (r) => [
      await r.webhookSubscriptions.findMany(ids),
      await r.webhookSubscriptions.signingSecrets(ids, now),
    ] as const);
    return this.targeted(deliveries, leaseId, subscriptions, secrets);
  }

  private targeted(deliveries: WebhookDeliveryRow[], leaseId: string, subscriptions: WebhookSubscriptionRow[], secrets: WebhookSecretRow[]): Leased[] {
    const bySubscription = new Map<string, string[]>();
    for (const secret of secrets) {
      const list = bySubscription.get(secret.subscriptionId) ?? [];
      list.push(decryptSecret(secret.secretSealed, this.opts.encryptionKey));
      bySubscription.set(secret.subscriptionId, list);
    }
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    return deliveries.map((delivery) => ({
      delivery, leaseId, subscription: byId.get(delivery.subscriptionId), secrets: bySubscription.get(delivery.subscriptionId) ?? [],
    }));
  }

  private async attempt({ delivery, leaseId, subscription, secrets }: Leased): Promise<void> {
    // Revoked after the lease was taken: the revocation abandoned the delivery; send nothing.
    if (!subscription || subscription.status !== 'active') return;
    const startedAt = this.opts.now();
    // Wall time for the histogram: `now` may be a test's clock.
    const started = performance.now();
    const outcome: AttemptOutcome =
      secrets.length === 0
        ? { delivered: false, statusCode: null, error: 'the subscription has no signing secret' }
        : await sendDelivery(
            { url: subscription.url, eventId: delivery.eventId, eventType: delivery.eventType, payload: delivery.payload, secrets },
            this.opts.send,
          );
    const finishedAt = this.opts.now();
    const attempt = delivery.attempts + 1;
    const delay = outcome.delivered ? null : retryDelayAfter(attempt, this.opts.retrySchedule);
    const state: DeliveryState = outcome.delivered ? 'delivered' : delay === null ? 'abandoned' : 'pending';
    const nextAttemptAt = delay === null ? null : new Date(finishedAt.getTime() + delay);
    countAttempt(state, (performance.now() - started) / 1000);
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
    if (nextAttemptAt) this.wakeIn(nextAttemptAt.getTime() - Date.now());
  }
}
