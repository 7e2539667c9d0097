import { readProxyHeader, V1_MAX_LENGTH, V2_MAX_LENGTH } from './proxy-header';

const SIGNATURE = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

/** A v2 header: version 2, `command` (0 LOCAL, 1 PROXY), family and transport byte, then the address block and any TLVs. */
function v2(command: number, familyTransport: number, block: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(block.length);
  return Buffer.concat([SIGNATURE, Buffer.from([0x20 | command, familyTransport]), length, block]);
}

function ipv4Block(source: number[], destination: number[], ports = [51_000, 443]): Buffer {
  const block = Buffer.alloc(12);
  Buffer.from(source).copy(block, 0);
  Buffer.from(destination).copy(block, 4);
  block.writeUInt16BE(ports[0] as number, 8);
  block.writeUInt16BE(ports[1] as number, 10);
  return block;
}

function ipv6Block(source: string, destination: string): Buffer {
  const hex = (address: string) => Buffer.from(address.replace(/:/g, ''), 'hex');
  return Buffer.concat([hex(source), hex(destination), Buffer.from([0xc7, 0x38, 0x01, 0xbb])]);
}

const REQUEST = Buffer.from('GET / HTTP/1.1\r\nHost: a.example\r\n\r\n');

describe('readProxyHeader v1', () => {
  it('reads TCP4 and gives the length of the line, so what follows is the connection', () => {
    const line = 'PROXY TCP4 203.0.113.7 192.0.2.1 56324 443\r\n';
    expect(readProxyHeader(Buffer.concat([Buffer.from(line), REQUEST]))).toEqual({ kind: 'header', length: line.length, source: '203.0.113.7' });
  });

  it('reads TCP6 and spells the address one way', () => {
    const line = 'PROXY TCP6 2001:DB8:0:0::7 2001:db8::1 56324 443\r\n';
    expect(readProxyHeader(Buffer.from(line))).toEqual({ kind: 'header', length: line.length, source: '2001:db8::7' });
    expect(readProxyHeader(Buffer.from('PROXY TCP6 ::ffff:203.0.113.7 ::1 1 2\r\n'))).toMatchObject({ source: '203.0.113.7' });
  });

  it('reads UNKNOWN, with or without addresses, as no client address', () => {
    expect(readProxyHeader(Buffer.from('PROXY UNKNOWN\r\n'))).toEqual({ kind: 'header', length: 15, source: null });
    expect(readProxyHeader(Buffer.from('PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n'))).toMatchObject({ kind: 'header', source: null });
  });

  it('is partial until the line ends, however the bytes are cut', () => {
    const line = Buffer.from('PROXY TCP4 203.0.113.7 192.0.2.1 56324 443\r\n');
    for (let n = 1; n < line.length; n += 1) expect(readProxyHeader(line.subarray(0, n))).toEqual({ kind: 'partial' });
    expect(readProxyHeader(line)).toMatchObject({ kind: 'header', source: '203.0.113.7' });
  });

  it.each([
    ['a family it does not know', 'PROXY UDP4 203.0.113.7 192.0.2.1 1 2\r\n'],
    ['an IPv6 address under TCP4', 'PROXY TCP4 2001:db8::7 192.0.2.1 1 2\r\n'],
    ['an IPv4 address in a short form', 'PROXY TCP4 127.1 192.0.2.1 1 2\r\n'],
    ['a port past 65535', 'PROXY TCP4 203.0.113.7 192.0.2.1 65536 2\r\n'],
    ['a port with a sign', 'PROXY TCP4 203.0.113.7 192.0.2.1 +1 2\r\n'],
    ['a missing field', 'PROXY TCP4 203.0.113.7 192.0.2.1 1\r\n'],
    ['a doubled space', 'PROXY TCP4  203.0.113.7 192.0.2.1 1 2\r\n'],
    ['lowercase', 'proxy TCP4 203.0.113.7 192.0.2.1 1 2\r\n'],
  ])('refuses %s', (_what, line) => {
    expect(readProxyHeader(Buffer.from(line)).kind).toBe('invalid');
  });

  it(`refuses a line longer than ${V1_MAX_LENGTH} bytes without waiting for its end`, () => {
    const long = Buffer.from(`PROXY UNKNOWN ${'x'.repeat(V1_MAX_LENGTH)}`);
    expect(readProxyHeader(long)).toEqual({ kind: 'invalid', reason: 'v1 line too long' });
    const longest = Buffer.from(`PROXY UNKNOWN ${'x'.repeat(V1_MAX_LENGTH - 16)}\r\n`);
    expect(longest).toHaveLength(V1_MAX_LENGTH);
    expect(readProxyHeader(longest)).toMatchObject({ kind: 'header', length: V1_MAX_LENGTH });
  });
});

describe('readProxyHeader v2', () => {
  it('reads PROXY over IPv4', () => {
    const header = v2(1, 0x11, ipv4Block([203, 0, 113, 7], [192, 0, 2, 1]));
    expect(readProxyHeader(Buffer.concat([header, REQUEST]))).toEqual({ kind: 'header', length: 28, source: '203.0.113.7' });
  });

  it('reads PROXY over IPv6, an IPv4-mapped address as IPv4', () => {
    const header = v2(1, 0x21, ipv6Block('20010db8000000000000000000000007', '20010db8000000000000000000000001'));
    expect(readProxyHeader(header)).toEqual({ kind: 'header', length: 52, source: '2001:db8::7' });
    const mapped = v2(1, 0x21, ipv6Block('00000000000000000000ffffcb007107', '00000000000000000000000000000001'));
    expect(readProxyHeader(mapped)).toMatchObject({ source: '203.0.113.7' });
  });

  it('skips TLVs after the addresses', () => {
    const tlvs = Buffer.from([0x01, 0x00, 0x02, 0x68, 0x32, 0x04, 0x00, 0x00]); // ALPN "h2", then an empty NOOP
    const header = v2(1, 0x11, Buffer.concat([ipv4Block([198, 51, 100, 9], [192, 0, 2, 1]), tlvs]));
    expect(readProxyHeader(Buffer.concat([header, REQUEST]))).toEqual({ kind: 'header', length: 16 + 12 + tlvs.length, source: '198.51.100.9' });
  });

  it('reads LOCAL (a health check of the balancer) as no client address, addresses or not', () => {
    expect(readProxyHeader(v2(0, 0x00, Buffer.alloc(0)))).toEqual({ kind: 'header', length: 16, source: null });
    expect(readProxyHeader(v2(0, 0x11, ipv4Block([10, 0, 0, 1], [10, 0, 0, 2])))).toEqual({ kind: 'header', length: 28, source: null });
  });

  it('reads PROXY with unspecified addresses as no client address', () => {
    expect(readProxyHeader(v2(1, 0x00, Buffer.alloc(0)))).toEqual({ kind: 'header', length: 16, source: null });
  });

  it('reads LOCAL whatever its family and transport, which the receiver ignores', () => {
    expect(readProxyHeader(v2(0, 0x12, ipv4Block([10, 0, 0, 1], [10, 0, 0, 2])))).toEqual({ kind: 'header', length: 28, source: null });
    expect(readProxyHeader(v2(0, 0x31, Buffer.alloc(216)))).toEqual({ kind: 'header', length: 232, source: null });
  });

  it.each([
    ['UDP over IPv4', 0x12, ipv4Block([203, 0, 113, 7], [192, 0, 2, 1])],
    ['UDP over IPv6', 0x22, ipv6Block('20010db8000000000000000000000007', '20010db8000000000000000000000001')],
    ['a UNIX stream', 0x31, Buffer.alloc(216)],
    ['a UNIX datagram', 0x32, Buffer.alloc(216)],
    ['IPv4 with no transport', 0x10, ipv4Block([203, 0, 113, 7], [192, 0, 2, 1])],
    ['a stream of no family', 0x01, Buffer.alloc(0)],
  ])('refuses PROXY of %s: the edge takes TCP connections only', (_what, familyTransport, block) => {
    expect(readProxyHeader(Buffer.concat([v2(1, familyTransport, block), REQUEST]))).toEqual({ kind: 'invalid', reason: 'v2 connection not TCP' });
    // Known from the fixed part: nothing more is waited for.
    expect(readProxyHeader(v2(1, familyTransport, block).subarray(0, 16))).toEqual({ kind: 'invalid', reason: 'v2 connection not TCP' });
  });

  it('is partial until the whole header is there, however the bytes are cut', () => {
    const header = v2(1, 0x21, ipv6Block('20010db8000000000000000000000007', '20010db8000000000000000000000001'));
    for (let n = 1; n < header.length; n += 1) expect(readProxyHeader(header.subarray(0, n))).toEqual({ kind: 'partial' });
    expect(readProxyHeader(header)).toMatchObject({ kind: 'header', source: '2001:db8::7' });
  });

  it.each([
    ['version 1 in the binary form', Buffer.concat([SIGNATURE, Buffer.from([0x11, 0x11, 0x00, 0x0c]), Buffer.alloc(12)])],
    ['an unknown command', v2(2, 0x11, Buffer.alloc(12))],
    ['an unknown family', v2(1, 0x41, Buffer.alloc(12))],
    ['an unknown transport', v2(1, 0x13, Buffer.alloc(12))],
    ['a length shorter than its IPv4 addresses', v2(1, 0x11, Buffer.alloc(8))],
    ['a length shorter than its IPv6 addresses', v2(1, 0x21, Buffer.alloc(12))],
  ])('refuses %s', (_what, header) => {
    expect(readProxyHeader(header).kind).toBe('invalid');
  });

  it(`refuses a header longer than ${V2_MAX_LENGTH} bytes as soon as its length is known`, () => {
    const fixed = v2(1, 0x11, Buffer.alloc(V2_MAX_LENGTH)).subarray(0, 16);
    expect(readProxyHeader(fixed)).toEqual({ kind: 'invalid', reason: 'v2 header too long' });
    expect(readProxyHeader(v2(1, 0x11, Buffer.alloc(V2_MAX_LENGTH - 16))).kind).toBe('header');
  });
});

describe('readProxyHeader without a header', () => {
  it.each([
    ['an HTTP request', REQUEST],
    ['a TLS ClientHello', Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])],
    ['a wrong v2 signature', Buffer.from('0d0a0d0a000d0a51554954ff', 'hex')],
    ['garbage', Buffer.from('\x00\x01garbage')],
  ])('refuses %s at its first differing byte', (_what, data) => {
    expect(readProxyHeader(data)).toEqual({ kind: 'invalid', reason: 'no PROXY protocol signature' });
  });

  it('waits while the bytes could still begin a header', () => {
    expect(readProxyHeader(Buffer.alloc(0))).toEqual({ kind: 'partial' });
    expect(readProxyHeader(Buffer.from('PROX'))).toEqual({ kind: 'partial' });
    expect(readProxyHeader(SIGNATURE.subarray(0, 5))).toEqual({ kind: 'partial' });
  });
});
