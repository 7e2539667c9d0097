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
// The hash is keyed with a random key of this process (HalfSipHash-2-4): live
// hostnames are public (Certificate Transparency logs), and with an unkeyed
// hash anyone could compute names that collide with them and make each one
// cost a query; without the key a name collides only by chance, and each edge
// process collides on other names. The reads that collisions (or a feed that
// has stopped) still cause are capped by the edge's budget for cache misses.
// A hash is never removed when its name stops being live (another live name
// may share it); the set is rebuilt once such names pile up.
import { randomBytes } from 'node:crypto';

/** HalfSipHash's key: two 32-bit words. */
export type NameHashKey = readonly [number, number];

/** A key of this process alone, from the system's random source. */
export function randomNameHashKey(): NameHashKey {
  const bytes = randomBytes(8);
  return [bytes.readUInt32LE(0), bytes.readUInt32LE(4)];
}

const rotl = (x: number, b: number): number => (x << b) | (x >>> (32 - b));

/**
 * HalfSipHash-2-4 (Aumasson and Bernstein's reference, 32-bit output) of the
 * name's UTF-16LE bytes under `key`, cut to 30 bits. Two code units make one
 * 32-bit word, so a hostname of 30 characters is 15 words: well under a
 * microsecond, and it runs once per handshake or request of a name not cached.
 */
export function nameHash(name: string, key: NameHashKey): number {
  let v0 = key[0] | 0;
  let v1 = key[1] | 0;
  let v2 = 0x6c796765 ^ v0;
  let v3 = 0x74656462 ^ v1;
  const words = name.length >>> 1;
  for (let w = 0; w <= words; w += 1) {
    // The last block: an odd trailing code unit, and the length in bytes (mod 256) in the top byte.
    const m = w < words
      ? name.charCodeAt(2 * w) | (name.charCodeAt(2 * w + 1) << 16)
      : ((name.length & 1 ? name.charCodeAt(name.length - 1) : 0) | ((name.length * 2) << 24));
    v3 ^= m;
    for (let round = 0; round < 2; round += 1) {
      v0 = (v0 + v1) | 0; v1 = rotl(v1, 5) ^ v0; v0 = rotl(v0, 16);
      v2 = (v2 + v3) | 0; v3 = rotl(v3, 8) ^ v2;
      v0 = (v0 + v3) | 0; v3 = rotl(v3, 7) ^ v0;
      v2 = (v2 + v1) | 0; v1 = rotl(v1, 13) ^ v2; v2 = rotl(v2, 16);
    }
    v0 ^= m;
  }
  v2 ^= 0xff;
  for (let round = 0; round < 4; round += 1) {
    v0 = (v0 + v1) | 0; v1 = rotl(v1, 5) ^ v0; v0 = rotl(v0, 16);
    v2 = (v2 + v3) | 0; v3 = rotl(v3, 8) ^ v2;
    v0 = (v0 + v3) | 0; v3 = rotl(v3, 7) ^ v0;
    v2 = (v2 + v1) | 0; v1 = rotl(v1, 13) ^ v2; v2 = rotl(v2, 16);
  }
  return (v1 ^ v3) & 0x3fffffff;
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

  /** `key`: tests fix it; the edge takes a random one per process. */
  constructor(private readonly key: NameHashKey = randomNameHashKey()) {}

  /** True once a full load has finished: only then can a name be known absent. */
  get ready(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.hashes.size;
  }

  /** False only when the name is certainly not live (the set is loaded and lacks its hash). */
  mightBeLive(name: string): boolean {
    return !this.loaded || this.hashes.has(nameHash(name, this.key));
  }

  /** The feed saw the name's live state now. */
  set(name: string, live: boolean): void {
    if (live) {
      const hash = nameHash(name, this.key);
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
        for (const name of names) next.add(nameHash(name, this.key));
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
