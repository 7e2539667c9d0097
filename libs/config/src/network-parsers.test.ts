import { parseBindAddress, parseCidrList, parseDnsServers, parseHostname, parseTrustProxy } from './network-parsers';

describe('parseCidrList', () => {
  it('normalizes ranges and single addresses', () => {
    expect(parseCidrList('10.0.0.0/8, ::1 ,FC00:0::/7,192.0.2.1')).toEqual([
      '10.0.0.0/8',
      '::1/128',
      'fc00::/7',
      '192.0.2.1/32',
    ]);
  });

  it('gives an empty list for empty text', () => {
    expect(parseCidrList('')).toEqual([]);
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0/8', '127.1/8', '0x7f.0.0.1/8', '10.0.0.0/8/8', 'localhost', '10.0.0.0/8,,'])(
    'refuses %j',
    (text) => {
      expect(() => parseCidrList(text)).toThrow('must be a comma list of CIDR ranges');
    },
  );
});

describe('parseDnsServers', () => {
  it('keeps ip and ip:port entries', () => {
    expect(parseDnsServers('1.1.1.1, 127.0.0.1:8053,::1,[2001:db8::1]:5353')).toEqual([
      '1.1.1.1',
      '127.0.0.1:8053',
      '::1',
      '[2001:db8::1]:5353',
    ]);
  });

  it.each(['dns.google', '1.1.1.1:0', '1.1.1.1:70000', '[1.1.1.1]:53', '2001:db8::1]:53', '1.1.1:53'])('refuses %j', (text) => {
    expect(() => parseDnsServers(text)).toThrow('must be a comma list of DNS server addresses');
  });
});

describe('parseTrustProxy', () => {
  it.each([
    ['false', false],
    ['0', 0],
    ['3', 3],
    ['loopback', 'loopback'],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
    ['192.0.2.1,uniquelocal,fd00::/8', '192.0.2.1,uniquelocal,fd00::/8'],
  ])('%j -> %j', (text, expected) => {
    expect(parseTrustProxy(text)).toBe(expected);
  });

  it.each(['yes', 'loopback,,', '10.0.0.0/40', '-1'])('refuses %j', (text) => {
    expect(() => parseTrustProxy(text)).toThrow('must be false, a hop count');
  });

  it.each(['true', 'TRUE', 'True'])('refuses %j, saying why and what to give instead', (text) => {
    expect(() => parseTrustProxy(text)).toThrow(/^must not be true: it trusts every hop, so any client chooses its own address .*give the proxies' addresses or the hop count/);
  });
});

describe('parseHostname and parseBindAddress', () => {
  it('lowercases a hostname and drops one trailing dot', () => {
    expect(parseHostname('Edge.Example.COM.')).toBe('edge.example.com');
  });

  it.each(['-edge.example.com', 'edge..example.com', 'under_score.example', '192.0.2.1', `${'a'.repeat(64)}.example`])(
    'refuses hostname %j',
    (text) => {
      expect(() => parseHostname(text)).toThrow('must be a hostname');
    },
  );

  it.each(['0.0.0.0', '127.0.0.1', '::', 'localhost'])('binds to %j', (text) => {
    expect(parseBindAddress(text)).toBe(text);
  });

  it.each(['127.1', '300.0.0.1', 'two words'])('refuses bind address %j', (text) => {
    expect(() => parseBindAddress(text)).toThrow('must be an IP address or a hostname');
  });
});
