// Where the edge's change feed stands, and what a read's rows ask of the
// caches. The cursor is the database's clock, never the edge's: each read asks
// for rows changed since the previous read's database time minus an overlap,
// which covers a transaction that committed after a later-stamped one was
// already read. Rows read again inside the overlap are reported once.
import type { EdgeChange, EdgeChanges } from '@cds/data';

/** Longer than any transaction that changes what the edge serves. */
export const FEED_OVERLAP_MS = 10_000;

export class FeedCursor {
  private sinceMs: number | null = null;
  /** Rows already reported, by kind, key and change time, until they fall behind the cursor. */
  private readonly reported = new Map<string, number>();

  constructor(private readonly overlapMs: number = FEED_OVERLAP_MS) {}

  /** What the next read asks for: null before the first read (which only learns the database's clock). */
  get since(): Date | null {
    return this.sinceMs === null ? null : new Date(this.sinceMs);
  }

  /**
   * The rows of one successful read not reported before; the cursor moves to
   * the read's database time minus the overlap (back too, if that clock went
   * back: a row is read twice rather than missed).
   */
  accept(read: EdgeChanges): EdgeChange[] {
    const fresh: EdgeChange[] = [];
    for (const change of read.changes) {
      const at = change.changedAt.getTime();
      const id = `${change.kind}\u0000${change.key}\u0000${at}`;
      if (this.reported.has(id)) continue;
      this.reported.set(id, at);
      fresh.push(change);
    }
    const since = read.readAt.getTime() - this.overlapMs;
    this.sinceMs = since;
    for (const [id, at] of this.reported) if (at <= since) this.reported.delete(id);
    return fresh;
  }
}

/** What changed rows ask of the caches. */
export interface Affected {
  /** Hostnames whose route and certificate are dropped. */
  hostnames: Set<string>;
  /** Hostnames whose certificate alone is dropped. */
  certificates: Set<string>;
  /** Applications whose routes are dropped (the application or its origins changed). */
  applications: Set<string>;
  /** Applications whose signing key is read again. */
  keys: Set<string>;
  /** Hostnames that have a live domain now (true) or not (false). */
  live: Map<string, boolean>;
}

export function affected(changes: EdgeChange[]): Affected {
  const out: Affected = { hostnames: new Set(), certificates: new Set(), applications: new Set(), keys: new Set(), live: new Map() };
  for (const change of changes) {
    switch (change.kind) {
      case 'domain':
        out.hostnames.add(change.key);
        out.live.set(change.key, change.live === true);
        break;
      case 'certificate':
        out.certificates.add(change.key);
        break;
      case 'application':
      case 'origin':
        out.applications.add(change.key);
        break;
      case 'assertion_key':
        out.keys.add(change.key);
        break;
    }
  }
  return out;
}
