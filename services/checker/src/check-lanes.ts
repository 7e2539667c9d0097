// When the checker's work on leased domains runs, in two lanes:
//   checks:       the first step of each domain, `checks` domains at a time;
//   certificates: the issuing step of the domains whose first step asked for
//                 it, a few at a time when no check runs or waits; one at a
//                 time and spaced out while checks run, so neither lane starves.
// Certificates waiting take turns (turn-queue.ts): renewals first, and the
// applications in turn. The lanes also say how many more domains to lease.
// What a step does is the pipeline's (check-pipeline.ts); nothing here does I/O.
import { TurnQueue, type Turn } from './turn-queue';

/** Domains leased ahead of the checks running, in multiples of the check lane's width. */
export const LEASE_AHEAD = 5;
/**
 * The checker leases when this many rounds (check lane widths) are free, so
 * each lease takes at least that many domains (a statement costs about as
 * much for 30 as for 100) and two rounds stay queued.
 */
export const LEASE_ROUNDS = 3;
/** While checks run, certificates start one at a time and at least this far apart. */
export const ISSUE_SPACING_MS = 100;
/** First steps waiting to be written before no more domains are leased. */
export const MAX_UNWRITTEN = 2000;
/** Certificates waiting to be issued in one process before no more domains are leased. */
export const MAX_CERTIFICATES_WAITING = 10_000;

export interface LaneWidths {
  /** Checks run at once. */
  checks: number;
  /** Certificates issued at once. */
  certificates: number;
}

/** The work the lanes start: C is a domain waiting for its check, I one waiting for its certificate. */
export interface LaneWork<C, I> {
  check(item: C): Promise<void>;
  issue(item: I): Promise<void>;
  /** After any work settles, until the lanes stop: room for more domains may have opened. */
  settled(): void;
  /** Where a certificate waits (default: one queue, first in, first out). */
  issueTurn?(item: I): Turn;
}

export interface Unstarted<C, I> {
  checks: C[];
  issues: I[];
}

export class CheckLanes<C, I> {
  private readonly checksWaiting: C[] = [];
  private readonly issuesWaiting: TurnQueue<I>;
  /** Checks, issuances and writes under way, for stop to wait on. */
  private readonly running = new Set<Promise<void>>();
  private checking = 0;
  private issuing = 0;
  /** First steps handed to the writer and not yet written. */
  private writing = 0;
  private dueBehind = false;
  private lastIssueAt = Number.NEGATIVE_INFINITY;
  private issueTimer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly widths: LaneWidths, private readonly work: LaneWork<C, I>) {
    this.issuesWaiting = new TurnQueue<I>((item) => work.issueTurn?.(item) ?? { priority: 0, group: '' });
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /**
   * How many more leased domains to take now: enough for LEASE_AHEAD rounds of
   * checks ahead, none while too many steps wait to be written or certificates to be
   * issued.
   */
  capacity(): number {
    if (this.writing >= MAX_UNWRITTEN || this.issuesWaiting.length >= MAX_CERTIFICATES_WAITING) return 0;
    return LEASE_AHEAD * this.widths.checks - (this.checksWaiting.length + this.checking);
  }

  /** The scheduler's word on whether more domains are due than it could lease: certificates wait for them. */
  moreDue(more: boolean): void {
    this.dueBehind = more;
    if (!more) this.pump();
  }

  /** Domains waiting for their check, started in order as slots free up. */
  queueChecks(items: readonly C[]): void {
    this.checksWaiting.push(...items);
    this.pump();
  }

  /** A domain waiting for its certificate, in its turn among the ones already waiting. */
  queueIssue(item: I): void {
    this.issuesWaiting.push(item);
    this.pump();
  }

  /** A first step being written: it counts against leasing more, and stop waits for it. */
  addWrite(write: Promise<void>): void {
    this.writing += 1;
    this.track(write, () => {
      this.writing -= 1;
    });
  }

  /** Starts nothing more; answers the work not started, for the caller to give back. */
  stop(): Unstarted<C, I> {
    this.stopping = true;
    if (this.issueTimer) clearTimeout(this.issueTimer);
    return { checks: this.checksWaiting.splice(0), issues: this.issuesWaiting.drain() };
  }

  /** Settles when the work under way (and any it queues meanwhile) has finished. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (!this.stopping && this.checking < this.widths.checks && this.checksWaiting.length > 0) {
      const item = this.checksWaiting.shift() as C;
      this.checking += 1;
      this.track(this.work.check(item), () => {
        this.checking -= 1;
      });
    }
    while (!this.stopping && this.issuing < this.widths.certificates && this.issuesWaiting.length > 0) {
      // Checks go first: while they run, certificates go one at a time, spaced out.
      const checksBusy = this.dueBehind || this.checksWaiting.length > 0 || this.checking > 0;
      if (checksBusy && (this.issuing > 0 || performance.now() - this.lastIssueAt < ISSUE_SPACING_MS)) {
        this.wakeForIssue();
        break;
      }
      const next = this.issuesWaiting.shift() as I;
      this.lastIssueAt = performance.now();
      this.issuing += 1;
      this.track(this.work.issue(next), () => {
        this.issuing -= 1;
      });
    }
  }

  /** Looks again when the spacing between certificates has passed (nothing else may wake the lanes meanwhile). */
  private wakeForIssue(): void {
    if (this.issueTimer || this.issuing > 0) return;
    this.issueTimer = setTimeout(() => {
      this.issueTimer = null;
      this.pump();
    }, ISSUE_SPACING_MS);
  }

  /** Runs `settle` when `work` settles, then starts what now has room (one reaction per item: thousands run a second). */
  private track(work: Promise<void>, settle: () => void): void {
    const tracked: Promise<void> = work.then(() => this.settle(tracked, settle), () => this.settle(tracked, settle));
    this.running.add(tracked);
  }

  private settle(tracked: Promise<void>, settle: () => void): void {
    settle();
    this.running.delete(tracked);
    this.pump();
    if (!this.stopping) this.work.settled();
  }
}
