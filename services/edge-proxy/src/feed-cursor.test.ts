import type { EdgeChange } from '@cds/data';
import { affected, FeedCursor } from './feed-cursor';

const at = (ms: number) => new Date(ms);
const domain = (key: string, ms: number, live = true): EdgeChange => ({ kind: 'domain', key, changedAt: at(ms), live });

describe('FeedCursor', () => {
  it('starts without a position, then asks from the database time of the last read minus the overlap', () => {
    const cursor = new FeedCursor(10_000);
    expect(cursor.since).toBeNull();
    expect(cursor.accept({ readAt: at(100_000), changes: [] })).toEqual([]);
    expect(cursor.since).toEqual(at(90_000));
    cursor.accept({ readAt: at(101_000), changes: [] });
    expect(cursor.since).toEqual(at(91_000));
  });

  it('reports a row read again inside the overlap once, and a new change of the same row again', () => {
    const cursor = new FeedCursor(10_000);
    cursor.accept({ readAt: at(100_000), changes: [] });
    expect(cursor.accept({ readAt: at(101_000), changes: [domain('a.example', 100_500)] })).toHaveLength(1);
    expect(cursor.accept({ readAt: at(102_000), changes: [domain('a.example', 100_500)] })).toEqual([]);
    expect(cursor.accept({ readAt: at(103_000), changes: [domain('a.example', 100_500), domain('a.example', 102_700, false)] })).toEqual([domain('a.example', 102_700, false)]);
  });

  it('reports a row that committed late with an older change time, as long as it is inside the overlap', () => {
    const cursor = new FeedCursor(10_000);
    cursor.accept({ readAt: at(100_000), changes: [] });
    cursor.accept({ readAt: at(101_000), changes: [domain('b.example', 100_900)] });
    // Stamped at 100.2 s, committed after the read at 101 s.
    expect(cursor.accept({ readAt: at(102_000), changes: [domain('late.example', 100_200), domain('b.example', 100_900)] })).toEqual([domain('late.example', 100_200)]);
  });

  it('follows the database clock back rather than skipping what is stamped by it', () => {
    const cursor = new FeedCursor(10_000);
    cursor.accept({ readAt: at(500_000), changes: [] });
    cursor.accept({ readAt: at(200_000), changes: [] });
    expect(cursor.since).toEqual(at(190_000));
  });

  it('forgets reported rows once they fall behind the cursor', () => {
    const cursor = new FeedCursor(1_000);
    cursor.accept({ readAt: at(10_000), changes: [domain('c.example', 9_500)] });
    cursor.accept({ readAt: at(20_000), changes: [] });
    // Only a cursor moved back could read it again: then it is reported again.
    expect(cursor.accept({ readAt: at(10_000), changes: [domain('c.example', 9_500)] })).toHaveLength(1);
  });
});

describe('affected', () => {
  it('sorts changes into what each cache drops', () => {
    const out = affected([
      domain('a.example', 1),
      domain('gone.example', 2, false),
      { kind: 'certificate', key: 'c.example', changedAt: at(3) },
      { kind: 'application', key: 'app-1', changedAt: at(4) },
      { kind: 'origin', key: 'app-2', changedAt: at(5) },
      { kind: 'assertion_key', key: 'app-3', changedAt: at(6) },
    ]);
    expect(out.hostnames).toEqual(new Set(['a.example', 'gone.example']));
    expect(out.live).toEqual(new Map([['a.example', true], ['gone.example', false]]));
    expect(out.certificates).toEqual(new Set(['c.example']));
    expect(out.applications).toEqual(new Set(['app-1', 'app-2']));
    expect(out.keys).toEqual(new Set(['app-3']));
  });
});
