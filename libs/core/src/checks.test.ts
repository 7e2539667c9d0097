import {
  certificateGate, evaluateAddressRouting, evaluateCertificate, evaluateOrigin, evaluateOwnership, evaluateRouting, sameDnsName, MAX_CNAME_HOPS,
} from './checks';

const TOKEN = 'ab'.repeat(32);

describe('evaluateOwnership', () => {
  test('passes when one TXT record holds the challenge value', () => {
    expect(evaluateOwnership('shop.example.com', TOKEN, { records: ['other', ` custom-domain-verify=${TOKEN} `] })).toEqual({ status: 'passing', errorCode: null, message: null });
  });
  test('txt_record_not_found without records (conclusive)', () => {
    const outcome = evaluateOwnership('shop.example.com', TOKEN, { records: [] });
    expect(outcome).toMatchObject({ status: 'failing', errorCode: 'txt_record_not_found', message: expect.stringContaining('_custom-domain-challenge.shop.example.com') });
    expect(outcome.inconclusive).toBeUndefined();
  });
  // Node's resolver codes for a timeout, SERVFAIL, REFUSED and failures at the network.
  test.each(['ETIMEOUT', 'ESERVFAIL', 'EREFUSED', 'ECONNREFUSED', 'ECANCELLED', 'EBADRESP'])('a lookup that fails with %s is inconclusive', (code) => {
    expect(evaluateOwnership('shop.example.com', TOKEN, { error: code })).toEqual({
      status: 'failing', errorCode: 'txt_record_not_found', inconclusive: true,
      message: `The TXT lookup of _custom-domain-challenge.shop.example.com failed (${code}).`,
    });
  });
  test('a record with another value is conclusive', () => {
    expect(evaluateOwnership('shop.example.com', TOKEN, { records: ['custom-domain-verify=00'] }).inconclusive).toBeUndefined();
  });
  test('txt_record_mismatch names what was found', () => {
    expect(evaluateOwnership('shop.example.com', TOKEN, { records: ['custom-domain-verify=00'] })).toMatchObject({ errorCode: 'txt_record_mismatch', message: expect.stringContaining('"custom-domain-verify=00"') });
  });
});

describe('evaluateRouting', () => {
  test('passes when the chain reaches the target, case and trailing dot ignored', () => {
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: ['a.example.org', 'EDGE.example.net.'], complete: true }).status).toBe('passing');
  });
  test('cname_not_found without a CNAME is conclusive', () => {
    const outcome = evaluateRouting('shop.example.com', 'edge.example.net', { records: [] });
    expect(outcome).toMatchObject({ errorCode: 'cname_not_found' });
    expect(outcome.inconclusive).toBeUndefined();
  });
  test.each(['ETIMEOUT', 'ESERVFAIL', 'EREFUSED', 'ECONNREFUSED'])('a CNAME lookup failing with %s is inconclusive, at the first hop or a later one', (code) => {
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: [], error: code })).toEqual({
      status: 'failing', errorCode: 'cname_not_found', inconclusive: true, message: `The CNAME lookup of shop.example.com failed (${code}).`,
    });
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: ['a.example.org.'], error: code })).toMatchObject({
      inconclusive: true, message: `The CNAME lookup of a.example.org failed (${code}).`,
    });
  });
  test('a lookup failing after the chain reached the edge target still passes', () => {
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: ['edge.example.net'], error: 'ESERVFAIL' }).status).toBe('passing');
  });
  test('a CNAME elsewhere is conclusive', () => {
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: ['other.example.net'] }).inconclusive).toBeUndefined();
  });
  test('cname_target_mismatch says where it points', () => {
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: ['Other.example.net.'] }).message).toBe('CNAME points to other.example.net, expected edge.example.net.');
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: ['a.example.org', 'b.example.org'] }).message).toBe('CNAME points to b.example.org (via a.example.org), expected edge.example.net.');
  });
  test('a chain longer than the hop limit fails', () => {
    const chain = Array.from({ length: MAX_CNAME_HOPS }, (_, i) => `h${i}.example.org`);
    expect(evaluateRouting('shop.example.com', 'edge.example.net', { records: chain, complete: false })).toMatchObject({ errorCode: 'cname_target_mismatch', message: expect.stringContaining('8 hops') });
  });
  test('sameDnsName', () => {
    expect(sameDnsName('A.b.', 'a.B')).toBe(true);
    expect(sameDnsName('a.b', 'a.c')).toBe(false);
  });
});

describe('certificate', () => {
  const pass = { status: 'passing', errorCode: null, message: null } as const;
  const fail = { status: 'failing', errorCode: 'cname_not_found', message: 'x' } as const;
  test('pending until ownership and routing pass', () => {
    expect(certificateGate(pass, fail)).toMatchObject({ status: 'pending', errorCode: null, message: expect.stringMatching(/ownership and routing/) });
    expect(certificateGate(pass, pass)).toBeNull();
  });
  test('certificate_expired once not_after has passed', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(evaluateCertificate({ notAfter: new Date('2025-12-31T00:00:00Z') }, now)).toMatchObject({ errorCode: 'certificate_expired' });
    expect(evaluateCertificate({ notAfter: new Date('2026-02-01T00:00:00Z') }, now)).toMatchObject({ status: 'passing' });
    expect(evaluateCertificate(null, now)).toBeNull();
  });
});

describe('evaluateOrigin', () => {
  const probed = { kind: 'probed', target: 'http://o/health', ok: false, message: 'm' } as const;
  test.each([
    ['tls_error', 'origin_tls_error'],
    ['error_status', 'origin_error_status'],
    ['connection_refused', 'origin_unreachable'],
    ['timeout', 'origin_unreachable'],
    ['dns_error', 'origin_unreachable'],
    ['connection_error', 'origin_unreachable'],
  ])('%s -> %s, inconclusive', (reason, code) => {
    expect(evaluateOrigin({ ...probed, reason })).toMatchObject({ status: 'failing', errorCode: code, inconclusive: true, message: expect.stringContaining('http://o/health') });
  });
  test('a 5xx answer is inconclusive', () => {
    expect(evaluateOrigin({ ...probed, reason: 'error_status', statusCode: 503, message: 'answered 503' })).toMatchObject({ errorCode: 'origin_error_status', inconclusive: true });
  });
  test('no_active_origin (conclusive) and passing', () => {
    expect(evaluateOrigin({ kind: 'no_active_origin' })).toEqual({ status: 'failing', errorCode: 'no_active_origin', message: 'The application has no active origin.' });
    expect(evaluateOrigin({ kind: 'probed', target: 't', ok: true, statusCode: 404 }).status).toBe('passing');
  });
});

describe('evaluateAddressRouting (apex domains, DECISIONS §12)', () => {
  const EDGE = ['203.0.113.10', '2001:db8::10'];
  const none = { records: [] };

  test('passes when every A and AAAA answer is an edge address', () => {
    expect(evaluateAddressRouting('customer.com', EDGE, { a: { records: ['203.0.113.10'] }, aaaa: { records: ['2001:DB8:0:0::10'] } })).toEqual({ status: 'passing', errorCode: null, message: null });
    expect(evaluateAddressRouting('customer.com', EDGE, { a: { records: ['203.0.113.10'] }, aaaa: none }).status).toBe('passing');
    expect(evaluateAddressRouting('customer.com', EDGE, { a: none, aaaa: { records: ['2001:db8::10'] } }).status).toBe('passing');
  });

  test('address_not_found when both answers are empty (conclusive)', () => {
    const outcome = evaluateAddressRouting('customer.com', EDGE, { a: none, aaaa: none });
    expect(outcome).toMatchObject({ status: 'failing', errorCode: 'address_not_found', message: expect.stringContaining('customer.com') });
    expect(outcome.inconclusive).toBeUndefined();
  });

  test('address_mismatch names the foreign address (conclusive), even when the other lookup failed', () => {
    const outcome = evaluateAddressRouting('customer.com', EDGE, { a: { records: ['203.0.113.10', '192.0.2.55'] }, aaaa: { error: 'SERVFAIL' } });
    expect(outcome).toMatchObject({ status: 'failing', errorCode: 'address_mismatch', message: expect.stringContaining('192.0.2.55') });
    expect(outcome.message).not.toContain('resolves to 203.0.113.10');
    expect(outcome.inconclusive).toBeUndefined();
  });

  test('a failed lookup without a foreign address is inconclusive', () => {
    const outcome = evaluateAddressRouting('customer.com', EDGE, { a: { records: ['203.0.113.10'] }, aaaa: { error: 'timeout' } });
    expect(outcome).toMatchObject({ status: 'failing', errorCode: 'address_not_found', inconclusive: true, message: 'The AAAA lookup of customer.com failed (timeout).' });
  });
});
