// Keys let through at most once per spacing each (an edge asking for a
// domain's check, a checker running such a check: DECISIONS §13). Holds only
// the keys let through within the last spacing, forgotten oldest first as new
// ones come, so its memory is bounded by what one spacing brings.

export interface KeySpacingOptions {
  spacingMs: number;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
}

export class KeySpacing {
  /** Key → when it was last let through; insertion order is time order (a key let through again moves to the end). */
  private readonly passed = new Map<string, number>();
  private readonly spacingMs: number;
  private readonly now: () => number;

  constructor(opts: KeySpacingOptions) {
    this.spacingMs = opts.spacingMs;
    this.now = opts.now ?? Date.now;
  }

  /** True, noting the time, when `key` was not let through within the spacing before `at`. */
  take(key: string, at = this.now()): boolean {
    for (const [old, when] of this.passed) {
      if (at - when < this.spacingMs) break;
      this.passed.delete(old);
    }
    if (this.passed.has(key)) return false;
    this.passed.set(key, at);
    return true;
  }

  /** Keys remembered (let through within the spacing, or not swept yet). */
  get size(): number {
    return this.passed.size;
  }
}
