import { LiveNames, nameHash, randomNameHashKey, type NameHashKey } from './live-names';

/** The reference vectors' key: bytes 0 to 7. */
const REFERENCE_KEY: NameHashKey = [0x03020100, 0x07060504];

function pages(names: string[]) {
  const sorted = [...names].sort();
  const calls: string[] = [];
  const page = async (after: string, limit: number) => {
    calls.push(after);
    return sorted.filter((n) => n > after).slice(0, limit);
  };
  return { page, calls };
}

describe('LiveNames', () => {
  it('knows nothing absent before its first load, then answers from the hashes of the live names', async () => {
    const names = new LiveNames();
    expect(names.mightBeLive('random.example')).toBe(true);
    const { page, calls } = pages(['a.example', 'b.example', 'c.example']);
    await names.load(page, 2);
    expect(calls).toEqual(['', 'b.example']);
    expect(names.ready).toBe(true);
    expect(names.mightBeLive('a.example')).toBe(true);
    expect(names.mightBeLive('c.example')).toBe(true);
    expect(names.mightBeLive('random.example')).toBe(false);
  });

  it('takes names the feed adds during a load, and keeps a gone name as possibly live until a rebuild', async () => {
    const names = new LiveNames();
    let release: () => void = () => undefined;
    const loading = names.load(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return ['old.example'];
    });
    names.set('new.example', true);
    release();
    await loading;
    expect(names.mightBeLive('new.example')).toBe(true);
    names.set('old.example', false);
    expect(names.mightBeLive('old.example')).toBe(true);
    await names.load(pages([]).page);
    expect(names.mightBeLive('old.example')).toBe(false);
  });

  it('asks for a rebuild once gone names are a quarter of the set', () => {
    const names = new LiveNames();
    for (let i = 0; i < 9_999; i += 1) names.set(`n${i}.example`, false);
    expect(names.stale).toBe(false);
    names.set('last.example', false);
    expect(names.stale).toBe(true);
  });

  it('hashes with HalfSipHash-2-4: the reference vectors over UTF-16LE bytes, cut to 30 bits', () => {
    // The reference's messages are the bytes 0, 1, 2, …: as UTF-16LE, code unit j is (2j) | (2j + 1) << 8.
    const message = (bytes: number) => String.fromCharCode(...Array.from({ length: bytes / 2 }, (_, j) => (2 * j) | ((2 * j + 1) << 8)));
    const vectors: Array<[number, number]> = [[0, 0x5b9f35a9], [2, 0x03a662fa], [4, 0x89466e2a], [6, 0x23fc6358]];
    for (const [bytes, tag] of vectors) expect(nameHash(message(bytes), REFERENCE_KEY)).toBe(tag & 0x3fffffff);
  });

  it('hashes to 30 bits, the same for the same name and key, and differently under another key', () => {
    const key = randomNameHashKey();
    expect(nameHash('shop.example.com', key)).toBe(nameHash('shop.example.com', key));
    for (const name of ['', 'a', 'shop.example.com', 'x'.repeat(253)]) expect(nameHash(name, key)).toBeLessThan(2 ** 30);
    expect(nameHash('a.example', key)).not.toBe(nameHash('b.example', key));
    const names = Array.from({ length: 100 }, (_, i) => `n${i}.example`);
    const other = randomNameHashKey();
    expect(names.filter((name) => nameHash(name, key) === nameHash(name, other)).length).toBeLessThan(2);
  });
});
