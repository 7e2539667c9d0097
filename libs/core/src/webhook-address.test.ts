import { classifyAddress, inAllowedRanges, parseWebhookUrl, refusedAddress } from './webhook-address';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.215.14'],
    ['192.31.196.1'], // AS112 anycast: globally reachable
    ['2001:4860:4860::8888'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'], // mapped public IPv4
    ['64:ff9b::808:808'], // NAT64 of 8.8.8.8
    ['2002:808:808::1'], // 6to4 of 8.8.8.8
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toEqual({ public: true });
  });

  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['100::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible form
    ['64:ff9b:1::a00:1', 'private'], // local-use NAT64
  ])('%s is refused as %s', (address, reason) => {
    expect(classifyAddress(address)).toEqual({ public: false, reason });
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
    ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
    ['::ffff:10.1.2.3', 'private', '10.1.2.3'],
    ['::ffff:0:169.254.169.254', 'link_local', '169.254.169.254'], // IPv4-translated
    ['64:ff9b::7f00:1', 'loopback', '127.0.0.1'], // NAT64
    ['64:ff9b::a9fe:a9fe', 'link_local', '169.254.169.254'],
    ['2002:7f00:1::1', 'loopback', '127.0.0.1'], // 6to4
    ['2002:c0a8:101::1', 'private', '192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved', '192.0.2.45'], // Teredo (RFC 4380 example client)
    ['2001:0:a00:1::', 'private', '10.0.0.1'], // Teredo whose server part is private
    ['2001:0:808:808:0:0:80ff:fffe', 'loopback', '127.0.0.1'], // Teredo client 127.0.0.1
  ])('%s is refused as %s through the IPv4 address it carries', (address, reason, embedded) => {
    expect(classifyAddress(address)).toEqual({ public: false, reason, embeddedIpv4: embedded });
  });

  it('throws on text that is no address', () => {
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
    expect(() => classifyAddress('127.1')).toThrow(TypeError);
  });
});

describe('inAllowedRanges and refusedAddress', () => {
  const allow = ['127.0.0.0/8', 'fd00::/8'];

  it('lets listed ranges through, their IPv6 forms of IPv4 included', () => {
    expect(inAllowedRanges('127.0.0.1', allow)).toBe(true);
    expect(inAllowedRanges('::ffff:127.0.0.1', allow)).toBe(true);
    expect(inAllowedRanges('fd00::5', allow)).toBe(true);
    expect(inAllowedRanges('10.0.0.1', allow)).toBe(false);
    expect(inAllowedRanges('::1', allow)).toBe(false);
    expect(inAllowedRanges('127.0.0.1', [])).toBe(false);
  });

  it('refuses the whole answer when any one address is refused (mixed public and private)', () => {
    expect(refusedAddress(['8.8.8.8', '2001:4860:4860::8888'], [])).toBeNull();
    expect(refusedAddress(['8.8.8.8', '10.0.0.1'], [])).toEqual({ reason: 'private', address: '10.0.0.1' });
    expect(refusedAddress(['8.8.8.8', '::ffff:127.0.0.1'], [])).toEqual({ reason: 'loopback', address: '::ffff:127.0.0.1', embedded_ipv4: '127.0.0.1' });
    expect(refusedAddress(['127.0.0.1', '8.8.8.8'], allow)).toBeNull();
    expect(refusedAddress(['127.0.0.1', '::1'], allow)).toEqual({ reason: 'loopback', address: '::1' });
  });

  it('calls an empty answer unresolvable', () => {
    expect(refusedAddress([], allow)).toEqual({ reason: 'unresolvable' });
  });
});

describe('parseWebhookUrl', () => {
  it.each([
    ['http://example.com/hook', 'scheme_not_https'],
    ['ftp://example.com/hook', 'scheme_not_https'],
    ['file:///etc/passwd', 'scheme_not_https'],
    ['gopher://example.com/', 'scheme_not_https'],
    ['javascript:alert(1)', 'scheme_not_https'],
    ['https://user:pass@example.com/', 'credentials_in_url'],
    ['https://user@example.com/', 'credentials_in_url'],
    ['https://:pass@example.com/', 'credentials_in_url'],
    ['not a url', 'invalid_url'],
    ['https://', 'invalid_url'],
    ['https://exa mple.com/', 'invalid_url'],
    ['https://[::1/', 'invalid_url'],
  ])('%s is refused as %s', (raw, reason) => {
    expect(parseWebhookUrl(raw)).toEqual({ ok: false, problem: { reason } });
  });

  it.each([
    ['https://127.0.0.1/', '127.0.0.1'],
    ['https://2130706433/', '127.0.0.1'], // decimal
    ['https://0x7f000001/', '127.0.0.1'], // hex
    ['https://0177.0.0.1/', '127.0.0.1'], // octal
    ['https://0x7f.1/', '127.0.0.1'], // mixed short form
    ['https://127.1/', '127.0.0.1'],
    ['https://[::1]:8443/x', '::1'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
  ])('%s is the IP literal %s', (raw, literal) => {
    const parsed = parseWebhookUrl(raw);
    expect(parsed.ok && parsed.ipLiteral).toBe(literal);
  });

  it('gives names to resolve, lowercased and without a trailing dot', () => {
    const parsed = parseWebhookUrl('https://Hooks.Example.COM./in?x=1');
    expect(parsed.ok && { hostname: parsed.hostname, literal: parsed.ipLiteral, href: parsed.url.href }).toEqual({
      hostname: 'hooks.example.com', literal: null, href: 'https://hooks.example.com./in?x=1',
    });
  });
});
