import { AppError, ErrorCode } from './errors';
import { canonicalHostname, isApexDomain, MAX_HOSTNAME_OCTETS, normalizeHostname, registrableDomain } from './hostname';

const EDGE = { edgeTarget: 'edge.localhost' };

/** A valid `<labels>.example.com` name of exactly `octets` octets. */
function nameOfLength(octets: number): string {
  const labels: string[] = [];
  let remaining = octets - 'example.com'.length;
  while (remaining > 0) {
    const size = Math.min(63, remaining - 1);
    labels.push('a'.repeat(size));
    remaining -= size + 1;
  }
  return [...labels, 'example.com'].join('.');
}

type Expected = { ok: string } | { code: ErrorCode };

const ok = (hostname: string): Expected => ({ ok: hostname });
const err = (code: ErrorCode): Expected => ({ code });

const TABLE: Array<[string, Expected]> = [
  // accepted, normalized
  ['shop.example.com', ok('shop.example.com')],
  ['Shop.Example.COM', ok('shop.example.com')],
  ['  shop.example.com  ', ok('shop.example.com')],
  ['\tshop.example.com\n', ok('shop.example.com')],
  ['shop.example.com.', ok('shop.example.com')],
  ['bücher.example.com', ok('xn--bcher-kva.example.com')],
  ['BÜCHER.example.com', ok('xn--bcher-kva.example.com')],
  ['xn--bcher-kva.example.com', ok('xn--bcher-kva.example.com')],
  ['faß.example.de', ok('xn--fa-hia.example.de')], // non-transitional: ß kept
  ['ｓｈｏｐ.example.com', ok('shop.example.com')], // full-width letters map to ASCII
  ['shop。example。com', ok('shop.example.com')], // ideographic full stops
  ['a-b.example.com', ok('a-b.example.com')],
  ['ab--cd.example.com', ok('ab--cd.example.com')],
  ['123.example.com', ok('123.example.com')],
  ['shop.foo.github.io', ok('shop.foo.github.io')],
  ['a.shop.co.uk', ok('a.shop.co.uk')],
  ['app.customer.test', ok('app.customer.test')],
  [`${'a'.repeat(63)}.example.com`, ok(`${'a'.repeat(63)}.example.com`)],
  [nameOfLength(228), ok(nameOfLength(228))],
  [`${nameOfLength(228)}.`, ok(nameOfLength(228))],
  ['edge.example.com', ok('edge.example.com')], // only the configured edge target is protected

  // empty_hostname
  ['', err('empty_hostname')],
  ['   ', err('empty_hostname')],
  ['\u3000\t', err('empty_hostname')],

  // wildcard_not_supported, checked before anything else after trimming
  ['*.example.com', err('wildcard_not_supported')],
  ['shop.*.example.com', err('wildcard_not_supported')],
  ['sh*p.example.com', err('wildcard_not_supported')],
  ['＊.example.com', err('wildcard_not_supported')],
  ['*', err('wildcard_not_supported')],

  // ip_literal_not_supported: every IPv4 form the WHATWG parser accepts, IPv6 with or without brackets
  ['127.0.0.1', err('ip_literal_not_supported')],
  ['127.0.0.1.', err('ip_literal_not_supported')],
  ['127.1', err('ip_literal_not_supported')],
  ['1.2.3', err('ip_literal_not_supported')],
  ['0x7f.0.0.1', err('ip_literal_not_supported')],
  ['0X7F.0.0.1', err('ip_literal_not_supported')],
  ['0177.0.0.1', err('ip_literal_not_supported')],
  ['2130706433', err('ip_literal_not_supported')],
  ['0', err('ip_literal_not_supported')],
  ['１２７.０.０.１', err('ip_literal_not_supported')],
  ['1．2．3．4', err('ip_literal_not_supported')],
  ['::1', err('ip_literal_not_supported')],
  ['[::1]', err('ip_literal_not_supported')],
  ['2001:DB8::1', err('ip_literal_not_supported')],
  ['[2001:db8::1]', err('ip_literal_not_supported')],
  ['::ffff:192.0.2.1', err('ip_literal_not_supported')],
  ['fe80::1%eth0', err('ip_literal_not_supported')],

  // invalid_hostname: not a host at all, or IDNA failure
  ['1.2.3.4.5', err('invalid_hostname')], // numeric last label the IPv4 parser refuses
  ['4294967296', err('invalid_hostname')],
  ['shop.example.123', err('invalid_hostname')],
  ['shop example.com', err('invalid_hostname')],
  ['shop.example.com:443', err('invalid_hostname')],
  ['shop.example.com/path', err('invalid_hostname')],
  ['https://shop.example.com', err('invalid_hostname')],
  ['user@shop.example.com', err('invalid_hostname')],
  ['shop%2eexample.com', err('invalid_hostname')],
  ['shop\nexample.com', err('invalid_hostname')],
  ['[garbage]', err('invalid_hostname')],
  ['[::1]/x', err('invalid_hostname')],
  ['xn--zz.example.com', err('invalid_hostname')], // bad punycode
  ['shop.xn--a.example.com', err('invalid_hostname')], // bad punycode, not the first label
  ['xn--abc-.example.com', err('invalid_hostname')], // the Punycode of plain "abc": no IDNA label
  ['XN--BCHER-KVA.example.com', ok('xn--bcher-kva.example.com')],
  ['\u0300a.example.com', err('invalid_hostname')], // label starts with a combining mark

  // hostname_too_long: counted in punycode octets, before label rules
  [nameOfLength(229), err('hostname_too_long')],
  [`${'ü'.repeat(50)}.`.repeat(4) + 'example.com', err('hostname_too_long')], // 215 characters, 239 octets in punycode
  [`${'a'.repeat(64)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(30)}.example.com`, err('hostname_too_long')],

  // invalid_label
  ['shop_1.example.com', err('invalid_label')],
  ['_dmarc.example.com', err('invalid_label')],
  ['foo..example.com', err('invalid_label')],
  ['.example.com', err('invalid_label')],
  ['shop.example.com..', err('invalid_label')], // only one trailing dot is stripped
  ['-shop.example.com', err('invalid_label')],
  ['shop-.example.com', err('invalid_label')],
  [`${'a'.repeat(64)}.example.com`, err('invalid_label')],
  ['sh!p.example.com', err('invalid_label')],
  ['\u200b.example.com', err('invalid_label')], // zero-width space is ignored by IDNA: empty label

  // invalid_hostname: single label, public suffix (ICANN and private sections), edge target
  ['localhost', err('invalid_hostname')],
  ['com', err('invalid_hostname')],
  ['com.', err('invalid_hostname')],
  ['co.uk', err('invalid_hostname')],
  ['github.io', err('invalid_hostname')],
  ['blogspot.com', err('invalid_hostname')],
  ['edge.localhost', err('invalid_hostname')],
  ['EDGE.localhost.', err('invalid_hostname')],
  ['shop.edge.localhost', err('invalid_hostname')],

  // apex_not_supported
  ['example.com', err('apex_not_supported')],
  ['Example.COM.', err('apex_not_supported')],
  ['shop.co.uk', err('apex_not_supported')],
  ['foo.github.io', err('apex_not_supported')],
  ['bücher.de', err('apex_not_supported')],
  ['customer.test', err('apex_not_supported')],
  ['other.localhost', err('apex_not_supported')],

  // the first rule broken decides
  ['*.127.0.0.1', err('wildcard_not_supported')],
  ['[*::1]', err('wildcard_not_supported')],
  ['under_score', err('invalid_label')], // label rules come before the single-label rule
  [`${'a'.repeat(64)}.com`, err('invalid_label')],
  ['-.co.uk', err('invalid_label')],
];

function outcome(input: string, edgeTarget = EDGE.edgeTarget): Expected {
  try {
    return ok(normalizeHostname(input, { edgeTarget }));
  } catch (e) {
    if (e instanceof AppError) return err(e.code);
    throw e;
  }
}

function thrown(input: string, edgeTarget = EDGE.edgeTarget): AppError {
  try {
    normalizeHostname(input, { edgeTarget });
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('normalizeHostname', () => {
  it('has a table of at least 50 rows covering every hostname code', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(50);
    const codes = new Set(TABLE.flatMap(([, e]) => ('code' in e ? [e.code] : [])));
    expect([...codes].sort()).toEqual(
      ['apex_not_supported', 'empty_hostname', 'hostname_too_long', 'invalid_hostname', 'invalid_label', 'ip_literal_not_supported', 'wildcard_not_supported'],
    );
  });

  it('builds boundary names of the intended length', () => {
    expect(nameOfLength(228)).toHaveLength(MAX_HOSTNAME_OCTETS);
    expect(nameOfLength(229)).toHaveLength(MAX_HOSTNAME_OCTETS + 1);
  });

  it.each(TABLE)('%j -> %j', (input, expected) => {
    expect(outcome(input)).toEqual(expected);
  });

  it('gives apex_not_supported the field and status of the contract', () => {
    const e = thrown('example.com');
    expect(e.status).toBe(422);
    expect(e.details).toMatchObject({ field: 'hostname' });
    expect(e.message).toContain('www.example.com');
  });

  it('writes messages that say what was wrong', () => {
    expect(thrown('shop_1.example.com').message).toContain('"shop_1"');
    expect(thrown('shop_1.example.com').details).toMatchObject({ field: 'hostname', label: 'shop_1' });
    expect(thrown('shop.example.com:443').message).toContain('U+003A');
    expect(thrown('127.1').message).toMatch(/IP address/);
    expect(thrown(nameOfLength(229)).message).toContain('229');
    expect(thrown('co.uk').message).toMatch(/public suffix/);
    expect(thrown('shop.edge.localhost').message).toContain('edge.localhost');
  });

  it('protects the registrable domain of a configured EDGE_TARGET and every name under it', () => {
    const edgeTarget = 'edge.cds-provider.com';
    expect(outcome('cds-provider.com', edgeTarget)).toEqual(err('invalid_hostname'));
    expect(outcome('edge.cds-provider.com', edgeTarget)).toEqual(err('invalid_hostname'));
    expect(outcome('customer.cds-provider.com', edgeTarget)).toEqual(err('invalid_hostname'));
    expect(outcome('EDGE.CDS-PROVIDER.COM.', edgeTarget)).toEqual(err('invalid_hostname'));
    expect(outcome('shop.notcds-provider.com', edgeTarget)).toEqual(ok('shop.notcds-provider.com'));
    expect(outcome('edge.localhost', edgeTarget)).toEqual(err('apex_not_supported'));
    expect(outcome('shop.edge.localhost', edgeTarget)).toEqual(ok('shop.edge.localhost'));
  });

  it('accepts a registrable domain when apex domains are on (DECISIONS §12), and still refuses what is no apex of the customer', () => {
    const apex = (input: string) => normalizeHostname(input, { edgeTarget: EDGE.edgeTarget, apexDomains: true });
    expect(apex('Example.COM.')).toBe('example.com');
    expect(apex('foo.github.io')).toBe('foo.github.io');
    expect(apex('shop.example.com')).toBe('shop.example.com');
    expect(() => apex('co.uk')).toThrow(expect.objectContaining({ code: 'invalid_hostname' }));
    expect(() => apex('edge.localhost')).toThrow(expect.objectContaining({ code: 'invalid_hostname' }));
    expect(isApexDomain('example.com')).toBe(true);
    expect(isApexDomain('www.example.com')).toBe(false);
  });

  it('protects EDGE_TARGET itself when it has no registrable domain', () => {
    expect(outcome('foo.localhost', 'localhost')).toEqual(err('invalid_hostname'));
    expect(outcome('a.b.localhost', 'localhost.')).toEqual(err('invalid_hostname'));
    expect(outcome('shop.example.com', 'localhost')).toEqual(ok('shop.example.com'));
  });
});

describe('registrableDomain', () => {
  it.each([
    ['a.shop.co.uk', 'shop.co.uk'],
    ['shop.foo.github.io', 'foo.github.io'],
    ['example.com', 'example.com'],
    ['co.uk', null],
    ['github.io', null],
  ])('%s -> %s', (hostname, expected) => {
    expect(registrableDomain(hostname)).toBe(expected);
  });
});

describe('canonicalHostname', () => {
  const canonical = (input: string): Expected => {
    try {
      return ok(canonicalHostname(input));
    } catch (e) {
      if (e instanceof AppError) return err(e.code);
      throw e;
    }
  };

  it.each(TABLE)('%j: refused with the same code as registration, or the name registration accepts or refuses on its own rules', (input, expected) => {
    const found = canonical(input);
    if ('code' in found || 'ok' in expected) {
      expect(found).toEqual(expected);
    } else {
      expect(['invalid_hostname', 'apex_not_supported']).toContain(expected.code);
      expect(found.ok).toBe(found.ok.toLowerCase());
    }
  });

  it('keeps names that registration refuses but that are hostnames: apex, single label, public suffix, the edge domain', () => {
    expect(canonical('Example.COM.')).toEqual(ok('example.com'));
    expect(canonical('localhost')).toEqual(ok('localhost'));
    expect(canonical('CO.UK')).toEqual(ok('co.uk'));
    expect(canonical('shop.edge.localhost')).toEqual(ok('shop.edge.localhost'));
    expect(canonical('  BÜCHER.de. ')).toEqual(ok('xn--bcher-kva.de'));
  });

  it('refuses what is no hostname with the codes and details of registration', () => {
    for (const [input, code] of [['', 'empty_hostname'], ['*.example.com', 'wildcard_not_supported'], ['127.1', 'ip_literal_not_supported'],
      ['shop.example.com:443', 'invalid_hostname'], ['xn--zz.example.com', 'invalid_hostname'], ['shop_1.example.com', 'invalid_label'],
      [nameOfLength(229), 'hostname_too_long']] as const) {
      expect(canonical(input)).toEqual(err(code));
    }
    expect(() => canonicalHostname('a..example.com')).toThrow(expect.objectContaining({ status: 422, details: { field: 'hostname', label: '' } }));
  });
});
