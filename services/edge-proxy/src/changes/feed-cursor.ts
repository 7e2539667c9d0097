// Where the edge's change feed stands, and what a read's rows ask of the
// caches. The position is the snapshot of the last read, in the database's
// order of commits (transaction ids on PostgreSQL, a change counter on
// SQLite), never a clock: the next read asks for the rows whose writers the
// snapshot did not see as ended, so a transaction that commits long after its
// write (held open, a slow commit) is read when it commits, however late. A
// row the repository hands back that the last snapshot had already seen is
// dropped: each change is reported once.
import type { EdgeChange, EdgeChanges, FeedSnapshot } from '@cds/data';

/** True when the snapshot saw the writer of `stamp` as ended: its changes were visible to that read. */
export function visibleIn(snapshot: FeedSnapshot, stamp: bigint): boolean {
  if (stamp < snapshot.xmin) return true;
  if (stamp >= snapshot.xmax) return false;
  return !snapshot.xip.includes(stamp);
}

/** What one read brought: the rows to act on, or `restarted` when the database's order went back (another database). */
export type FeedStep = { changes: EdgeChange[] } | { restarted: true };

export class FeedCursor {
  private seen: FeedSnapshot | null = null;

  /** What the next read asks from: null before the first read (which only takes its position). */
  get since(): FeedSnapshot | null {
    return this.seen;
  }

  /**
   * The rows of one successful read not seen before; the position moves to the read's snapshot. A snapshot
   * that ends before the last one began (a database restored elsewhere, whose ids or counter start again)
   * cannot be compared with it: the read is reported `restarted`, and the caches must forget what they hold.
   */
  accept(read: EdgeChanges): FeedStep {
    const seen = this.seen;
    this.seen = read.snapshot;
    if (seen === null) return { changes: [] };
    if (read.snapshot.xmax < seen.xmin) return { restarted: true };
    return { changes: read.changes.filter((change) => !visibleIn(seen, change.stamp)) };
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
