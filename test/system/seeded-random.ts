// A small seeded pseudo-random generator (mulberry32): the same seed gives the
// same fault schedule and workload, so a failed run can be replayed.
import { randomInt } from 'node:crypto';

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(0, i);
        [out[i], out[j]] = [out[j] as T, out[i] as T];
      }
      return out;
    },
  };
}

/** SYSTEM_SEED when set (a non-negative integer below 2^32), else a random one. */
export function seedFrom(value: string | undefined, random: () => number = () => randomInt(0, 2 ** 31)): number {
  if (value === undefined || value.trim() === '') return random();
  const text = value.trim();
  if (!/^\d+$/.test(text) || Number(text) >= 2 ** 32) throw new Error(`SYSTEM_SEED must be an integer from 0 to 4294967295 (got ${JSON.stringify(value)})`);
  return Number(text);
}
