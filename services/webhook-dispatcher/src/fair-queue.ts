// The worker's waiting line (DECISIONS §10), no I/O: one lane per
// subscription, lanes served in turn, and at most `maxInFlight` attempts of one
// subscription running at once (one while it is cooling). A subscription whose
// receiver hangs fills its own slots, never the others'.
import { failureStreakAfter, isCooling, subscriptionSlots } from '@cds/core';

export const DEFERRAL_REASONS = { inFlightCap: 'in_flight_cap', cooling: 'cooling' } as const;
export type DeferralReason = (typeof DEFERRAL_REASONS)[keyof typeof DEFERRAL_REASONS];

export interface FairQueueOptions {
  /** Attempts of one subscription that run at once; a cooling one gets 1. */
  maxInFlight: number;
  /** Items that waited for their subscription's turn while a slot was free, counted once each (and those given back on cooling). */
  onDeferred?: (count: number, reason: DeferralReason) => void;
}

interface Waiting<T> {
  item: T;
  deferred: boolean;
}

interface Lane<T> {
  subscriptionId: string;
  waiting: Array<Waiting<T>>;
  running: number;
}

/** A subscription's failure streak as this queue knows it, and the outcome count (`seq`) it dates from. */
interface Streak {
  failures: number;
  seq: number;
}

/** Streaks remembered for subscriptions that no longer hold anything here: only a read still running needs them. */
const REMEMBERED_STREAKS = 4096;

export interface Taken<T> {
  subscriptionId: string;
  item: T;
}

export class FairQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Lanes in turn order; `turn` (modulo their number) is the index of the lane served next. */
  private ring: Array<Lane<T>> = [];
  private turn = 0;
  private waitingCount = 0;
  private readonly streaks = new Map<string, Streak>();
  /** Outcomes seen so far. */
  private seq = 0;

  constructor(private readonly opts: FairQueueOptions) {}

  /** Items waiting for a slot. */
  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Where a database read starts in this queue's outcome history. An outcome is
   * written before the queue sees it, so a read started after it includes it;
   * one started before may not, and then the queue's own count is newer.
   */
  mark(): number {
    return this.seq;
  }

  /**
   * Adds leased items of one subscription, with its failure streak as a read
   * started at `readAt` (mark()) found it. Returns the items it must not hold:
   * a cooling subscription holds one delivery at most (the others go back to
   * the database, due now).
   */
  add(subscriptionId: string, items: T[], failures: number, readAt: number): T[] {
    const lane = this.lane(subscriptionId);
    const known = this.streaks.get(subscriptionId);
    if (!known || known.seq <= readAt) this.remember(subscriptionId, { failures, seq: readAt });
    lane.waiting.push(...items.map((item) => ({ item, deferred: false })));
    this.waitingCount += items.length;
    return this.trimCooling(lane);
  }

  /** The next item to start, the lanes taken in turn; null when no waiting item's subscription has a free slot. */
  take(): Taken<T> | null {
    const count = this.ring.length;
    for (let step = 0; step < count; step++) {
      const index = (this.turn + step) % count;
      const lane = this.ring[index] as Lane<T>;
      if (lane.waiting.length === 0) continue;
      if (lane.running >= this.slots(lane)) {
        this.defer(lane.waiting.filter((w) => !w.deferred), this.cooling(lane.subscriptionId) ? DEFERRAL_REASONS.cooling : DEFERRAL_REASONS.inFlightCap);
        continue;
      }
      const next = lane.waiting.shift() as Waiting<T>;
      this.waitingCount -= 1;
      lane.running += 1;
      // Not wrapped: a lane that joins now (at the end) is the one after this.
      this.turn = index + 1;
      return { subscriptionId: lane.subscriptionId, item: next.item };
    }
    return null;
  }

  /**
   * An attempt of the subscription ended: its slot is free, and its outcome
   * (`delivered`; null: nothing was sent) moves the streak. Returns the items
   * to give back when this made the subscription cooling.
   */
  finish(subscriptionId: string, delivered: boolean | null): T[] {
    const lane = this.lanes.get(subscriptionId);
    if (!lane) return [];
    lane.running = Math.max(0, lane.running - 1);
    if (delivered !== null) {
      this.seq += 1;
      this.remember(subscriptionId, { failures: failureStreakAfter(this.failures(subscriptionId), delivered), seq: this.seq });
    }
    const back = this.trimCooling(lane);
    this.prune(lane);
    return back;
  }

  /** Deliveries held per subscription id: running or waiting (the lease's `held`). */
  held(): Map<string, number> {
    return new Map(this.ring.map((lane) => [lane.subscriptionId, lane.running + lane.waiting.length]));
  }

  /** Waiting items whose subscription has a free slot: what could start now. */
  runnable(): number {
    let count = 0;
    for (const lane of this.ring) count += Math.min(lane.waiting.length, Math.max(0, this.slots(lane) - lane.running));
    return count;
  }

  /** Whether the subscription is cooling as this queue knows it. */
  cooling(subscriptionId: string): boolean {
    return isCooling(this.failures(subscriptionId));
  }

  /** Removes and returns every waiting item (the worker stops). */
  drain(): T[] {
    const items: T[] = [];
    for (const lane of [...this.ring]) {
      items.push(...lane.waiting.splice(0).map((w) => w.item));
      this.prune(lane);
    }
    this.waitingCount = 0;
    return items;
  }

  private slots(lane: Lane<T>): number {
    return subscriptionSlots(this.failures(lane.subscriptionId), this.opts.maxInFlight);
  }

  private failures(subscriptionId: string): number {
    return this.streaks.get(subscriptionId)?.failures ?? 0;
  }

  /** Newest last, so the oldest streaks of idle subscriptions are forgotten first. */
  private remember(subscriptionId: string, streak: Streak): void {
    this.streaks.delete(subscriptionId);
    this.streaks.set(subscriptionId, streak);
    if (this.streaks.size <= REMEMBERED_STREAKS) return;
    for (const id of this.streaks.keys()) {
      if (this.streaks.size <= REMEMBERED_STREAKS) break;
      if (!this.lanes.has(id)) this.streaks.delete(id);
    }
  }

  private lane(subscriptionId: string): Lane<T> {
    let lane = this.lanes.get(subscriptionId);
    if (!lane) {
      lane = { subscriptionId, waiting: [], running: 0 };
      this.lanes.set(subscriptionId, lane);
      // A new lane's first turn comes after every lane already waiting.
      this.ring.push(lane);
    }
    return lane;
  }

  /** A cooling lane keeps at most one delivery, running or waiting; the rest go back. */
  private trimCooling(lane: Lane<T>): T[] {
    if (!this.cooling(lane.subscriptionId)) return [];
    const keep = lane.running > 0 ? 0 : 1;
    const back = lane.waiting.splice(keep);
    if (back.length === 0) return [];
    this.waitingCount -= back.length;
    this.defer(back.filter((w) => !w.deferred), DEFERRAL_REASONS.cooling);
    this.prune(lane);
    return back.map((w) => w.item);
  }

  private defer(entries: Array<Waiting<T>>, reason: DeferralReason): void {
    if (entries.length === 0) return;
    for (const entry of entries) entry.deferred = true;
    this.opts.onDeferred?.(entries.length, reason);
  }

  /** Drops a lane that holds nothing, keeping the turn on the lane that was next. */
  private prune(lane: Lane<T>): void {
    if (lane.running > 0 || lane.waiting.length > 0) return;
    const index = this.ring.indexOf(lane);
    if (index < 0) return;
    this.ring.splice(index, 1);
    this.lanes.delete(lane.subscriptionId);
    if (index < this.turn) this.turn -= 1;
  }
}
