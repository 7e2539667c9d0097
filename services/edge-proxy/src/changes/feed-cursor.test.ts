import type { EdgeChange, EdgeChanges, FeedSnapshot } from '@cds/data';
import { affected, FeedCursor, visibleIn, type FeedStep } from './feed-cursor';

const domain = (key: string, stamp: bigint, live = true): EdgeChange => ({ kind: 'domain', key, stamp, live });

/**
 * A database as the feed sees it: transactions take increasing ids, their rows become visible at commit, and a
 * read's snapshot lists the transactions still running. `read` hands back every visible row stamped from `from`
 * on, those seen before included (a repository that returns more than it must).
 */
class Transactions {
  private next = 100n;
  private readonly running = new Set<bigint>();
  private readonly pending = new Map<bigint, string[]>();
  readonly rows = new Map<string, bigint>();

  begin(): bigint {
    const xid = this.next++;
    this.running.add(xid);
    this.pending.set(xid, []);
    return xid;
  }

  write(xid: bigint, key: string): void {
    this.pending.get(xid)!.push(key);
  }

  commit(xid: bigint): void {
    for (const key of this.pending.get(xid)!) this.rows.set(key, xid);
    this.end(xid);
  }

  abort(xid: bigint): void {
    this.end(xid);
  }

  read(seen: FeedSnapshot | null): EdgeChanges {
    const xip = [...this.running].sort((a, b) => (a < b ? -1 : 1));
    const snapshot = { xmin: xip[0] ?? this.next, xmax: this.next, xip };
    if (seen === null) return { snapshot, changes: [] };
    const changes = [...this.rows].filter(([, stamp]) => stamp >= seen.xmin).map(([key, stamp]) => domain(key, stamp));
    return { snapshot, changes };
  }

  private end(xid: bigint): void {
    this.running.delete(xid);
    this.pending.delete(xid);
  }
}

const keysOf = (step: FeedStep) => ('changes' in step ? step.changes.map((c) => c.key) : ['restarted']);

describe('visibleIn', () => {
  it('sees a writer below xmin, or below xmax and not in progress; never one in progress or from xmax on', () => {
    const snapshot = { xmin: 10n, xmax: 20n, xip: [10n, 15n] };
    expect([9n, 11n, 19n].map((x) => visibleIn(snapshot, x))).toEqual([true, true, true]);
    expect([10n, 15n, 20n, 25n].map((x) => visibleIn(snapshot, x))).toEqual([false, false, false, false]);
  });
});

describe('FeedCursor', () => {
  it('takes its position at the first read, then reports what each read shows that the last one did not', () => {
    const db = new Transactions();
    const cursor = new FeedCursor();
    expect(cursor.since).toBeNull();
    const before = db.begin();
    db.write(before, 'before.example');
    db.commit(before);
    expect(keysOf(cursor.accept(db.read(cursor.since)))).toEqual([]);
    const t = db.begin();
    db.write(t, 'a.example');
    db.commit(t);
    expect(keysOf(cursor.accept(db.read(cursor.since)))).toEqual(['a.example']);
    expect(keysOf(cursor.accept(db.read(cursor.since)))).toEqual([]);
  });

  it('reports a write whose commit comes 30 reads later, once, and the writes that committed meanwhile once each', () => {
    const db = new Transactions();
    const cursor = new FeedCursor();
    cursor.accept(db.read(null));
    const held = db.begin();
    db.write(held, 'suspended.example');
    const reported: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const t = db.begin();
      db.write(t, `quick-${i}.example`);
      db.commit(t);
      reported.push(...keysOf(cursor.accept(db.read(cursor.since))));
    }
    expect(reported).toEqual(Array.from({ length: 30 }, (_, i) => `quick-${i}.example`));
    // The held transaction is still below every position taken meanwhile.
    expect(cursor.since!.xmin).toBe(held);
    db.commit(held);
    expect(keysOf(cursor.accept(db.read(cursor.since)))).toEqual(['suspended.example']);
    expect(keysOf(cursor.accept(db.read(cursor.since)))).toEqual([]);
    expect(cursor.since!.xmin).toBeGreaterThan(held);
  });

  it('reports a row changed again by a later writer again, and nothing of an aborted one', () => {
    const db = new Transactions();
    const cursor = new FeedCursor();
    cursor.accept(db.read(null));
    const first = db.begin();
    db.write(first, 'a.example');
    db.commit(first);
    expect(keysOf(cursor.accept(db.read(cursor.since)))).toEqual(['a.example']);
    const aborted = db.begin();
    db.write(aborted, 'b.example');
    db.abort(aborted);
    const second = db.begin();
    db.write(second, 'a.example');
    db.commit(second);
    expect(cursor.accept(db.read(cursor.since))).toEqual({ changes: [domain('a.example', second)] });
  });

  it('never skips nor repeats a commit, whatever the interleaving of writers and reads', () => {
    // A seeded generator: the same interleavings at every run.
    let seed = 42;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    for (let run = 0; run < 20; run += 1) {
      const db = new Transactions();
      const cursor = new FeedCursor();
      cursor.accept(db.read(null));
      const open: bigint[] = [];
      const committed: string[] = [];
      const reported: string[] = [];
      let written = 0;
      for (let step = 0; step < 500; step += 1) {
        const roll = random();
        if (roll < 0.3) open.push(db.begin());
        else if (roll < 0.55 && open.length > 0) db.write(open[Math.floor(random() * open.length)]!, `row-${(written += 1)}`);
        else if (roll < 0.8 && open.length > 0) {
          const [xid] = open.splice(Math.floor(random() * open.length), 1);
          const before = db.rows.size;
          if (random() < 0.9) db.commit(xid!);
          else db.abort(xid!);
          for (const [key] of [...db.rows].slice(before)) committed.push(key);
        } else reported.push(...keysOf(cursor.accept(db.read(cursor.since))));
      }
      for (const xid of open) {
        const before = db.rows.size;
        db.commit(xid);
        for (const [key] of [...db.rows].slice(before)) committed.push(key);
      }
      reported.push(...keysOf(cursor.accept(db.read(cursor.since))));
      expect([...reported].sort()).toEqual([...committed].sort());
    }
  });

  it('asks the caches to forget everything when the database\'s order goes back (another database)', () => {
    const cursor = new FeedCursor();
    cursor.accept({ snapshot: { xmin: 5_000n, xmax: 5_010n, xip: [5_000n] }, changes: [] });
    expect(cursor.accept({ snapshot: { xmin: 700n, xmax: 710n, xip: [] }, changes: [domain('a.example', 705n)] })).toEqual({ restarted: true });
    expect(cursor.since).toEqual({ xmin: 700n, xmax: 710n, xip: [] });
    expect(keysOf(cursor.accept({ snapshot: { xmin: 712n, xmax: 712n, xip: [] }, changes: [domain('b.example', 711n)] }))).toEqual(['b.example']);
  });
});

describe('affected', () => {
  it('sorts changes into what each cache drops', () => {
    const out = affected([
      domain('a.example', 1n),
      domain('gone.example', 2n, false),
      { kind: 'certificate', key: 'c.example', stamp: 3n },
      { kind: 'application', key: 'app-1', stamp: 4n },
      { kind: 'origin', key: 'app-2', stamp: 5n },
      { kind: 'assertion_key', key: 'app-3', stamp: 6n },
    ]);
    expect(out.hostnames).toEqual(new Set(['a.example', 'gone.example']));
    expect(out.live).toEqual(new Map([['a.example', true], ['gone.example', false]]));
    expect(out.certificates).toEqual(new Set(['c.example']));
    expect(out.applications).toEqual(new Set(['app-1', 'app-2']));
    expect(out.keys).toEqual(new Set(['app-3']));
  });
});
