import { sniName } from '../caches/certificate-store';
import { hostName } from '../listeners/edge-pages';
import { clientAddress, clientResponseHeaderList, originRequestHeaders } from './forward-headers';

const ctx = { clientAddress: '203.0.113.9', host: 'shop.example.com', proto: 'https' as const, assertion: 'signed' };

describe('originRequestHeaders', () => {
  it('keeps Host and end-to-end headers, drops hop-by-hop and Connection-listed ones', () => {
    const headers = originRequestHeaders(
      ['Host', 'shop.example.com', 'Connection', 'keep-alive, X-Secret', 'X-Secret', 'a', 'Keep-Alive', '5', 'TE', 'trailers', 'Transfer-Encoding', 'chunked',
        'Upgrade', 'h2c', 'Proxy-Authorization', 'x', 'Expect', '100-continue', 'Accept', 'text/html', 'Cookie', 'a=1', 'Cookie', 'b=2'],
      ctx,
    );
    expect(headers).toEqual({
      host: 'shop.example.com', accept: 'text/html', cookie: ['a=1', 'b=2'],
      'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example.com',
      forwarded: 'for=203.0.113.9;host="shop.example.com";proto=https', 'x-real-ip': '203.0.113.9', 'x-custom-domain-assertion': 'signed',
    });
  });

  it('drops what clients say about their address or the URL asked for, and sets X-Real-IP', () => {
    const headers = originRequestHeaders(
      ['Host', 'shop.example.com', 'X-Real-IP', '6.6.6.6', 'True-Client-IP', '6.6.6.6', 'CF-Connecting-IP', '6.6.6.6', 'X-Original-URL', '/admin',
        'X-Rewrite-URL', '/admin', 'x-real-ip', '7.7.7.7', 'Accept', '*/*'],
      ctx,
    );
    expect(headers).toEqual(expect.objectContaining({ host: 'shop.example.com', accept: '*/*', 'x-real-ip': '203.0.113.9' }));
    for (const name of ['true-client-ip', 'cf-connecting-ip', 'x-original-url', 'x-rewrite-url']) expect(headers[name]).toBeUndefined();
  });

  it('drops HTTP/2 pseudo-headers, takes Host from :authority and joins its cookie fields', () => {
    const headers = originRequestHeaders(
      [':method', 'GET', ':authority', 'shop.example.com', ':scheme', 'https', ':path', '/x', 'cookie', 'a=1', 'accept', '*/*', 'cookie', 'b=2'],
      ctx,
    );
    expect(Object.keys(headers).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(headers.host).toBe('shop.example.com');
    expect(headers.cookie).toBe('a=1; b=2');
  });

  it('replaces whatever the client said about forwarding and the assertion', () => {
    const headers = originRequestHeaders(
      ['host', 'shop.example.com', 'X-Forwarded-For', '1.1.1.1', 'x-forwarded-for', '2.2.2.2', 'Forwarded', 'for=1.1.1.1', 'X-Forwarded-Host', 'evil', 'X-Forwarded-Proto', 'http',
        'X-Custom-Domain-Assertion', 'forged', 'x-custom-domain-assertion', 'forged2'],
      { ...ctx, clientAddress: '2001:db8::1' },
    );
    expect(headers['x-forwarded-for']).toBe('2001:db8::1');
    expect(headers.forwarded).toBe('for="[2001:db8::1]";host="shop.example.com";proto=https');
    expect(headers['x-forwarded-host']).toBe('shop.example.com');
    expect(headers['x-custom-domain-assertion']).toBe('signed');
  });

  it('keeps only the first Host', () => {
    expect(originRequestHeaders(['Host', 'a.example', 'Host', 'b.example'], ctx).host).toBe('a.example');
  });
});

describe('clientResponseHeaderList', () => {
  it('drops hop-by-hop and Connection-listed response headers, keeping names as sent and repeated headers', () => {
    const raw = ['Connection', 'close, X-Internal', 'X-Internal', '1', 'Keep-Alive', 'timeout=5', 'Transfer-Encoding', 'chunked',
      'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Type', 'text/plain'].map((v) => Buffer.from(v, 'latin1'));
    expect(clientResponseHeaderList(raw)).toEqual(['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Content-Type', 'text/plain']);
  });

  it('passes non-ASCII value bytes through unchanged', () => {
    const value = Buffer.from('naïve', 'utf8');
    const [, out] = clientResponseHeaderList([Buffer.from('X-Name'), value]);
    expect(Buffer.from(out as string, 'latin1').equals(value)).toBe(true);
  });
});

describe('names', () => {
  it.each([
    ['Shop.Example.com:8443', 'shop.example.com'], ['shop.example.com.', 'shop.example.com'], ['[::1]:443', '[::1]'], ['', null], [undefined, null],
  ])('hostName(%p) = %p', (input, expected) => expect(hostName(input)).toBe(expected));

  it.each([
    ['Shop.Example.COM', 'shop.example.com'], ['shop.example.com.', 'shop.example.com'], ['bad name', null], ['-x.example', null], ['a'.repeat(254), null],
  ])('sniName(%p) = %p', (input, expected) => expect(sniName(input)).toBe(expected));

  it('writes IPv4-mapped addresses as IPv4', () => {
    expect(clientAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientAddress('::1')).toBe('::1');
    expect(clientAddress('')).toBe('unknown');
  });
});
