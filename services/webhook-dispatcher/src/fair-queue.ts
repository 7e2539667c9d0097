// The worker's waiting line (DECISIONS §10), no I/O: one lane per
// subscription, lanes served in turn, at most `maxInFlight` attempts of one
// subscription running at once (one while it is cooling), and at most
// `maxInFlightPerApplication` of one application's subscriptions together. A
// subscription whose receiver hangs fills its own slots, never the others', and
// an application with many subscriptions fills its own share of the slots.
// Not the checker's TurnQueue, though both let groups take turns: that one only
// orders items (whatever runs), this one decides who may run now, so a lane
// keeps its place in the ring while its attempts run or wait for a slot.
import { coolingAfter, isCooling, NOT_COOLING, subscriptionSlots, type CoolingState } from '@cds/core';

export const DEFERRAL_REASONS = { inFlightCap: 'in_flight_cap', cooling: 'cooling', applicationCap: 'application_cap' } as const;
export type DeferralReason = (typeof DEFERRAL_REASONS)[keyof typeof DEFERRAL_REASONS];

export interface FairQueueOptions<T> {
  /** Attempts of one subscription that run at once; a cooling one gets 1. */
  maxInFlight: number;
  /** Attempts of one application's subscriptions together that run at once (default: no cap of its own). */
  maxInFlightPerApplication?: number;
  /** The application an item's subscription belongs to (default: one application for all). */
  applicationOf?: (item: T) => string;
  /** Items that waited for their subscription's turn while a slot was free, counted once each (and those given back on cooling). */
  onDeferred?: (count: number, reason: DeferralReason) => void;
}

interface Waiting<T> {
  item: T;
  deferred: boolean;
}

interface Lane<T> {
  subscriptionId: string;
  applicationId: string;
  waiting: Array<Waiting<T>>;
  running: number;
}

/** A subscription's cooling state as this queue knows it, and the outcome count (`seq`) it dates from. */
interface Known {
  state: CoolingState;
  seq: number;
}

/** States remembered for subscriptions that no longer hold anything here: only a read still running needs them. */
const REMEMBERED_STATES = 4096;

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
  private readonly states = new Map<string, Known>();
  /** Attempts running, by application id. */
  private readonly runningByApplication = new Map<string, number>();
  /** Outcomes seen so far. */
  private seq = 0;
  /** Outcomes seen whose write has not ended yet. */
  private unwritten = 0;

  constructor(private readonly opts: FairQueueOptions<T>) {}

  /** Items waiting for a slot. */
  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Where a database read starts in this queue's outcome history: the outcomes
   * whose write has ended. A read started after an outcome's write includes
   * it; one started before may not, and then the queue's own count is newer.
   * Writes end in the order their outcomes came (one writer, first in first
   * out), so those ended are the first `seq - unwritten`.
   */
  mark(): number {
    return this.seq - this.unwritten;
  }

  /**
   * Adds leased items of one subscription, with its cooling state as a read
   * started at `readAt` (mark()) found it. Returns the items it must not hold:
   * a cooling subscription holds one delivery at most (the others go back to
   * the database, due now).
   */
  add(subscriptionId: string, items: T[], state: CoolingState, readAt: number): T[] {
    if (items.length === 0) return [];
    const lane = this.lane(subscriptionId, this.opts.applicationOf?.(items[0] as T) ?? '');
    const known = this.states.get(subscriptionId);
    if (!known || known.seq <= readAt) this.remember(subscriptionId, { state, seq: readAt });
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
      if (this.applicationFree(lane.applicationId) <= 0) {
        this.defer(lane.waiting.filter((w) => !w.deferred), DEFERRAL_REASONS.applicationCap);
        continue;
      }
      const next = lane.waiting.shift() as Waiting<T>;
      this.waitingCount -= 1;
      lane.running += 1;
      this.runningByApplication.set(lane.applicationId, this.applicationRunning(lane.applicationId) + 1);
      // Not wrapped: a lane that joins now (at the end) is the one after this.
      this.turn = index + 1;
      return { subscriptionId: lane.subscriptionId, item: next.item };
    }
    return null;
  }

  /** release() of an outcome already written (or of nothing sent): reads vouch for it at once. */
  finish(subscriptionId: string, delivered: boolean | null): T[] {
    const { back, written } = this.release(subscriptionId, delivered);
    written();
    return back;
  }

  /**
   * An attempt of the subscription ended (its HTTP exchange): its slot is free,
   * and its outcome (`delivered`; null: nothing was sent) moves its cooling
   * state at once. Returns the items to give back when this made the
   * subscription cooling, and `written`, to call once the outcome's write has
   * ended (committed or failed): until then reads do not vouch for it.
   */
  release(subscriptionId: string, delivered: boolean | null): { back: T[]; written: () => void } {
    const lane = this.lanes.get(subscriptionId);
    // An outcome moves a state (and `seq`) only for a lane this queue holds; only those wait for their write.
    const counted = delivered !== null && lane !== undefined;
    if (counted) this.unwritten += 1;
    let done = false;
    const written = (): void => {
      if (done || !counted) return;
      done = true;
      this.unwritten -= 1;
    };
    if (!lane) return { back: [], written };
    if (lane.running > 0) {
      lane.running -= 1;
      const running = this.applicationRunning(lane.applicationId) - 1;
      if (running > 0) this.runningByApplication.set(lane.applicationId, running);
      else this.runningByApplication.delete(lane.applicationId);
    }
    if (delivered !== null) {
      this.seq += 1;
      this.remember(subscriptionId, { state: coolingAfter(this.state(subscriptionId), delivered), seq: this.seq });
    }
    const back = this.trimCooling(lane);
    this.prune(lane);
    return { back, written };
  }

  /** Deliveries held per subscription id: running or waiting (the lease's `held`). */
  held(): Map<string, number> {
    return new Map(this.ring.map((lane) => [lane.subscriptionId, lane.running + lane.waiting.length]));
  }

  /** Deliveries held per application id: running or waiting (the lease's `heldByApplication`). */
  heldByApplication(): Map<string, number> {
    const held = new Map<string, number>();
    for (const lane of this.ring) held.set(lane.applicationId, (held.get(lane.applicationId) ?? 0) + lane.running + lane.waiting.length);
    return held;
  }

  /** Waiting items whose subscription and application have a free slot: what could start now. */
  runnable(): number {
    const byApplication = new Map<string, number>();
    for (const lane of this.ring) {
      const free = Math.min(lane.waiting.length, Math.max(0, this.slots(lane) - lane.running));
      byApplication.set(lane.applicationId, (byApplication.get(lane.applicationId) ?? 0) + free);
    }
    let count = 0;
    for (const [applicationId, free] of byApplication) count += Math.min(free, Math.max(0, this.applicationFree(applicationId)));
    return count;
  }

  /** Attempts of the application's subscriptions running now. */
  applicationRunning(applicationId: string): number {
    return this.runningByApplication.get(applicationId) ?? 0;
  }

  /** Whether the subscription is cooling as this queue knows it. */
  cooling(subscriptionId: string): boolean {
    return isCooling(this.state(subscriptionId));
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
    return subscriptionSlots(this.state(lane.subscriptionId), this.opts.maxInFlight);
  }

  private applicationFree(applicationId: string): number {
    return (this.opts.maxInFlightPerApplication ?? Number.POSITIVE_INFINITY) - this.applicationRunning(applicationId);
  }

  private state(subscriptionId: string): CoolingState {
    return this.states.get(subscriptionId)?.state ?? NOT_COOLING;
  }

  /** Newest last, so the oldest states of idle subscriptions are forgotten first. */
  private remember(subscriptionId: string, known: Known): void {
    this.states.delete(subscriptionId);
    this.states.set(subscriptionId, known);
    if (this.states.size <= REMEMBERED_STATES) return;
    for (const id of this.states.keys()) {
      if (this.states.size <= REMEMBERED_STATES) break;
      if (!this.lanes.has(id)) this.states.delete(id);
    }
  }

  private lane(subscriptionId: string, applicationId: string): Lane<T> {
    let lane = this.lanes.get(subscriptionId);
    if (!lane) {
      lane = { subscriptionId, applicationId, waiting: [], running: 0 };
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
