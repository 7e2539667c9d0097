import { caaVerdict, checkCaa, type CaaRecord } from './caa';

const OURS = ['ca.example.org'];

/** A zone in memory: names without an entry answer ENOTFOUND, names with [] answer ENODATA. */
function zone(records: Record<string, CaaRecord[]>) {
  const asked: string[] = [];
  const resolver = {
    asked,
    async resolveCaa(name: string): Promise<CaaRecord[]> {
      asked.push(name);
      const found = records[name];
      if (found === undefined) throw Object.assign(new Error(`queryCaa ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      if (found.length === 0) throw Object.assign(new Error(`queryCaa ENODATA ${name}`), { code: 'ENODATA' });
      return found;
    },
  };
  return resolver;
}

const issue = (value: string, critical = 0): CaaRecord => ({ critical, issue: value });
const issuewild = (value: string): CaaRecord => ({ critical: 0, issuewild: value });
/** A record with a tag node:dns has no field for. */
const other = (tag: string, value: string, critical: number): CaaRecord => ({ critical, [tag]: value }) as CaaRecord;

describe('caaVerdict', () => {
  test('an issue record naming another CA forbids; one naming ours allows, whatever its case and parameters', () => {
    expect(caaVerdict('example.com', [issue('other-ca.example.net')], OURS)).toEqual({ allowed: false, name: 'example.com', found: ['issue "other-ca.example.net"'] });
    expect(caaVerdict('example.com', [issue('CA.Example.org; validationmethods=http-01')], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [issue('other-ca.example.net'), issue('ca.example.org')], OURS)).toEqual({ allowed: true });
  });

  test('issue ";" forbids every CA; without known identities only that forbids', () => {
    expect(caaVerdict('example.com', [issue(';')], OURS)).toMatchObject({ allowed: false });
    expect(caaVerdict('example.com', [issue(';')], [])).toEqual({ allowed: false, name: 'example.com', found: ['issue ";"'] });
    expect(caaVerdict('example.com', [issue('other-ca.example.net')], [])).toEqual({ allowed: true });
  });

  test('issuewild is ignored for a hostname that is not a wildcard', () => {
    expect(caaVerdict('example.com', [issuewild(';')], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [issuewild('other-ca.example.net')], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [issue('ca.example.org'), issuewild(';')], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [issue('other-ca.example.net'), issuewild('ca.example.org')], OURS)).toMatchObject({ allowed: false });
  });

  test('a critical record with an unknown tag forbids; a critical known tag or a non-critical unknown one does not', () => {
    expect(caaVerdict('example.com', [issue('ca.example.org'), other('tbs', 'unknown', 128)], OURS))
      .toEqual({ allowed: false, name: 'example.com', found: ['critical tbs "unknown"'] });
    expect(caaVerdict('example.com', [other('future', 'x', 128)], [])).toMatchObject({ allowed: false });
    expect(caaVerdict('example.com', [issue('ca.example.org'), other('tbs', 'unknown', 0)], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [issue('ca.example.org', 128), other('iodef', 'mailto:sec@example.com', 128)], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [other('ISSUE', 'other-ca.example.net', 0)], OURS)).toMatchObject({ allowed: false });
  });

  test('records as Node.js 24 gives them, with type "CAA" before the tag, decide by their tag', () => {
    const typed = ({ critical, ...property }: CaaRecord): CaaRecord => ({ critical, type: 'CAA', ...property }) as CaaRecord;
    expect(caaVerdict('example.com', [typed(issue(';'))], OURS)).toEqual({ allowed: false, name: 'example.com', found: ['issue ";"'] });
    expect(caaVerdict('example.com', [typed(issue('other-ca.example.net'))], OURS)).toMatchObject({ allowed: false });
    expect(caaVerdict('example.com', [typed(issue('ca.example.org'))], OURS)).toEqual({ allowed: true });
    expect(caaVerdict('example.com', [typed(other('tbs', 'unknown', 128))], OURS)).toEqual({ allowed: false, name: 'example.com', found: ['critical tbs "unknown"'] });
  });

  test('a record set with no issue record allows any CA', () => {
    expect(caaVerdict('example.com', [other('iodef', 'mailto:sec@example.com', 0)], OURS)).toEqual({ allowed: true });
  });
});

describe('checkCaa', () => {
  test('no CAA records anywhere allow issuance; the TLD is not asked', async () => {
    const dns = zone({});
    await expect(checkCaa(dns, 'shop.example.com', OURS)).resolves.toEqual({ allowed: true });
    expect(dns.asked).toEqual(['shop.example.com', 'example.com']);
  });

  test('the parent domain\'s records apply when the hostname has none', async () => {
    const dns = zone({ 'shop.example.com': [], 'example.com': [issue('other-ca.example.net')] });
    await expect(checkCaa(dns, 'www.shop.example.com', OURS)).resolves.toEqual({ allowed: false, name: 'example.com', found: ['issue "other-ca.example.net"'] });
    expect(dns.asked).toEqual(['www.shop.example.com', 'shop.example.com', 'example.com']);
    await expect(checkCaa(zone({ 'example.com': [issue('ca.example.org')] }), 'shop.example.com', OURS)).resolves.toEqual({ allowed: true });
  });

  test('the closest record set decides: a child\'s records override its parent\'s', async () => {
    const dns = zone({ 'shop.example.com': [issue('ca.example.org')], 'example.com': [issue(';')] });
    await expect(checkCaa(dns, 'shop.example.com', OURS)).resolves.toEqual({ allowed: true });
    expect(dns.asked).toEqual(['shop.example.com']);
    await expect(checkCaa(dns, 'other.example.com', OURS)).resolves.toMatchObject({ allowed: false, name: 'example.com' });
  });

  test('a failed lookup (not "no such record") stops the decision', async () => {
    const failing = { resolveCaa: () => Promise.reject(Object.assign(new Error('queryCaa ESERVFAIL'), { code: 'ESERVFAIL' })) };
    await expect(checkCaa(failing, 'shop.example.com', OURS)).rejects.toThrow('ESERVFAIL');
  });
});
