import { LiveNames, nameHash } from './live-names';

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

  it('hashes to 30 bits, the same for the same name', () => {
    expect(nameHash('shop.example.com')).toBe(nameHash('shop.example.com'));
    for (const name of ['', 'a', 'shop.example.com', 'x'.repeat(253)]) expect(nameHash(name)).toBeLessThan(2 ** 30);
    expect(nameHash('a.example')).not.toBe(nameHash('b.example'));
  });
});
