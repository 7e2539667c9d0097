// The hostnames that have a live domain, held in memory so that a name no
// domain has is answered (404, refused handshake) without a database query:
// the ≤ 2 s negative cache alone would still let a flood of distinct random
// names through as one query each. Loaded once in pages after the change feed
// has taken its position, then kept by the feed.
// Each name is kept as a 30-bit hash (a V8 small integer): measured for a
// million names, ~21 MB of heap against ~85 MB for the strings. A hash says
// "maybe live" (then the name is looked up as before, and a miss is remembered
// for 2 s); a name whose hash is absent is certainly not live. With a million
// live names one random name in a thousand collides and costs a query.
// A hash is never removed when its name stops being live (another live name
// may share it); the set is rebuilt once such names pile up.

/** FNV-1a over the name's UTF-16 code units, cut to 30 bits. */
export function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i += 1) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0x3fffffff;
}

/** One page of live hostnames after `after`, in order. */
export type LiveNamesPage = (after: string, limit: number) => Promise<string[]>;

export class LiveNames {
  private hashes = new Set<number>();
  /** Being rebuilt: the feed's additions go to both sets. */
  private next: Set<number> | null = null;
  private loaded = false;
  /** Names gone since the last build whose hashes are still in the set. */
  private gone = 0;

  /** True once a full load has finished: only then can a name be known absent. */
  get ready(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.hashes.size;
  }

  /** False only when the name is certainly not live (the set is loaded and lacks its hash). */
  mightBeLive(name: string): boolean {
    return !this.loaded || this.hashes.has(nameHash(name));
  }

  /** The feed saw the name's live state now. */
  set(name: string, live: boolean): void {
    if (live) {
      const hash = nameHash(name);
      this.hashes.add(hash);
      this.next?.add(hash);
    } else this.gone += 1;
  }

  /** Whether gone names are a quarter of the set (and at least 10,000): time to rebuild. */
  get stale(): boolean {
    return this.gone >= Math.max(10_000, this.hashes.size / 4);
  }

  /** Reads every live name page by page and swaps the new set in; the feed keeps adding meanwhile. */
  async load(page: LiveNamesPage, pageSize = 10_000): Promise<void> {
    const next = (this.next = new Set<number>());
    const goneBefore = this.gone;
    try {
      let after = '';
      for (;;) {
        const names = await page(after, pageSize);
        for (const name of names) next.add(nameHash(name));
        if (names.length < pageSize) break;
        after = names[names.length - 1]!;
      }
      this.hashes = next;
      this.gone -= goneBefore;
      this.loaded = true;
    } finally {
      if (this.next === next) this.next = null;
    }
  }
}
