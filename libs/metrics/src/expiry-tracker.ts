// The earliest notAfter among the certificates a checker saw in its recent
// runs. Every live domain is checked at least once per CHECK_INTERVAL_LIVE, so
// an entry not seen again within the time to live belongs to a domain that was
// deleted or is now checked by another replica, and no longer counts.
export class ExpiryTracker {
  private readonly seen = new Map<string, { notAfter: Date; seenAt: number }>();

  constructor(private readonly ttlMs: number) {}

  /** The certificate of `key` (a domain) expires at `notAfter`, as read at `at`. */
  see(key: string, notAfter: Date, at: Date): void {
    this.seen.set(key, { notAfter, seenAt: at.getTime() });
  }

  /** `key` has no certificate any more (deleted domain, or none yet). */
  forget(key: string): void {
    this.seen.delete(key);
  }

  /** The earliest notAfter seen within the time to live before `at`; drops older entries. Null when none. */
  earliest(at: Date): Date | null {
    const oldest = at.getTime() - this.ttlMs;
    let earliest: Date | null = null;
    for (const [key, entry] of this.seen) {
      if (entry.seenAt < oldest) this.seen.delete(key);
      else if (!earliest || entry.notAfter < earliest) earliest = entry.notAfter;
    }
    return earliest;
  }

  get size(): number {
    return this.seen.size;
  }
}
