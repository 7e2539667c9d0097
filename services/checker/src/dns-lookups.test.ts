import { MAX_CNAME_HOPS } from '@cds/core';
import { followCnames } from './dns-lookups';

const noData = () => Object.assign(new Error('no data'), { code: 'ENODATA' });

/** A resolver over a fixed map of CNAMEs; other names have no record. */
function resolverOf(cnames: Record<string, string>, failing: Record<string, string> = {}) {
  const asked: string[] = [];
  const resolve = (name: string): Promise<string[]> => {
    asked.push(name);
    if (failing[name]) return Promise.reject(Object.assign(new Error('failed'), { code: failing[name] }));
    const target = cnames[name];
    return target ? Promise.resolve([target]) : Promise.reject(noData());
  };
  return { resolve, asked };
}

describe('followCnames', () => {
  it('follows the chain until a name has no CNAME, asking each name once', async () => {
    const { resolve, asked } = resolverOf({ 'shop.example.net': 'a.example.com', 'a.example.com': 'edge.example.net' });
    expect(await followCnames(resolve, 'shop.example.net')).toEqual({ records: ['a.example.com', 'edge.example.net'], complete: true });
    expect(asked).toEqual(['shop.example.net', 'a.example.com', 'edge.example.net']);
  });

  it('answers no records for a name without a CNAME, and the error of a failed first lookup', async () => {
    expect(await followCnames(resolverOf({}).resolve, 'shop.example.net')).toEqual({ records: [], complete: true });
    expect(await followCnames(resolverOf({}, { 'shop.example.net': 'ETIMEOUT' }).resolve, 'shop.example.net')).toEqual({ records: [], error: 'timeout', complete: true });
  });

  it('keeps the hops found before a lookup fails, with its error', async () => {
    const { resolve } = resolverOf({ 'shop.example.net': 'a.example.com' }, { 'a.example.com': 'ESERVFAIL' });
    expect(await followCnames(resolve, 'shop.example.net')).toEqual({ records: ['a.example.com'], complete: true, error: 'SERVFAIL' });
  });

  it('stops after MAX_CNAME_HOPS hops, complete only when the last has no CNAME', async () => {
    const names = Array.from({ length: MAX_CNAME_HOPS + 2 }, (_, i) => `h${i}.example.com`);
    const exact = Object.fromEntries(names.slice(0, MAX_CNAME_HOPS).map((name, i) => [name, names[i + 1] as string]));
    const longer = Object.fromEntries(names.slice(0, MAX_CNAME_HOPS + 1).map((name, i) => [name, names[i + 1] as string]));
    expect(await followCnames(resolverOf(exact).resolve, 'h0.example.com')).toEqual({ records: names.slice(1, MAX_CNAME_HOPS + 1), complete: true });
    const cut = resolverOf(longer);
    expect(await followCnames(cut.resolve, 'h0.example.com')).toEqual({ records: names.slice(1, MAX_CNAME_HOPS + 1), complete: false });
    expect(cut.asked).toHaveLength(MAX_CNAME_HOPS + 1);
  });
});
