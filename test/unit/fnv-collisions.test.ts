// Names made to collide with a live hostname under the edge's former unkeyed
// hash, against the keyed set of live names: each would have cost a database
// read before; now one passes only by chance (about one in a billion).
import { LiveNames } from '../../services/edge-proxy/src/caches/live-names';
import { fnv1a30, fnvCollisions } from '../support/fnv-collisions';

describe('names colliding under the former FNV-1a hash', () => {
  const live = 'shop-7f3a.example.net';
  const names = fnvCollisions(live, 1_000);

  it('are 1,000 distinct hostnames, each with the live name\'s FNV-1a 30-bit hash', () => {
    expect(new Set(names).size).toBe(1_000);
    expect(names.every((name) => fnv1a30(name) === fnv1a30(live))).toBe(true);
    expect(names.every((name) => /^[a-z][a-z0-9]{11}\.collide\.example$/.test(name))).toBe(true);
  });

  it('are certainly not live for the keyed set, which still knows the live name', async () => {
    const set = new LiveNames();
    await set.load(async (after) => (after === '' ? [live] : []));
    expect(set.mightBeLive(live)).toBe(true);
    expect(names.filter((name) => set.mightBeLive(name)).length).toBeLessThanOrEqual(1);
  });
});
