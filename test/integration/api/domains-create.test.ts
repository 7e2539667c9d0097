// POST /v1/domains: the created resource, body rules, hostname normalization and
// refusals, and hostname claims across applications.
import { ROUTING_KEYS } from '@cds/core';
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';

const EDGE_TARGET = 'edge.example.net'; // the harness default
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNLIMITED = { api_requests_per_minute: 100_000, live_domains: 1000 };

let api: TestApi;
let key: string;
let otherKey: string;

beforeAll(async () => {
  api = await startTestApi();
  key = (await api.createApplication(undefined, UNLIMITED)).key;
  otherKey = (await api.createApplication(undefined, UNLIMITED)).key;
});
afterAll(() => api?.close());

const create = (body: unknown, token = key) => api.request('POST', '/v1/domains', { token, body });

async function liveHostnames(token = key): Promise<string[]> {
  const page = await api.request('GET', '/v1/domains?limit=200', { token });
  expect(page.status).toBe(200);
  return (page.body.items as Array<{ hostname: string }>).map((d) => d.hostname);
}

describe('a created domain', () => {
  it('is 201 with both DNS records, four pending checks and the echoed metadata', async () => {
    const reference = ' workspace/42 Ünïcode ';
    const metadata = { plan: 'pro', seats: 12, trial: false, note: null };
    const res = await create({ hostname: 'shop.example.com', reference, metadata });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const d = res.body;
    expect(Object.keys(d).sort()).toEqual(['checks', 'created_at', 'deleted_at', 'dns_records', 'hostname', 'id', 'metadata', 'redirect_to', 'reference', 'status', 'updated_at']);
    expect(d.id).toMatch(UUID);
    expect(d.hostname).toBe('shop.example.com');
    expect(d.reference).toBe(reference);
    expect(d.status).toBe('pending_dns');
    expect(d.metadata).toEqual(metadata);
    expect(d.created_at).toMatch(TIMESTAMP);
    expect(d.updated_at).toMatch(TIMESTAMP);
    expect(d.deleted_at).toBeNull();

    const [txt, cname, ...rest] = d.dns_records;
    expect(rest).toEqual([]);
    expect(txt).toEqual({
      name: '_custom-domain-challenge.shop.example.com',
      type: 'TXT',
      value: expect.stringMatching(/^custom-domain-verify=[0-9a-f]{64}$/),
      purpose: 'ownership',
      help: expect.any(String),
    });
    expect(cname).toEqual({ name: 'shop.example.com', type: 'CNAME', value: EDGE_TARGET, purpose: 'routing', help: expect.any(String) });
    for (const record of [txt, cname]) {
      for (const part of [record.type, record.name, record.value]) expect(record.help).toContain(part);
    }

    expect(d.checks.map((c: { type: string }) => c.type)).toEqual(['ownership', 'routing', 'certificate', 'origin']);
    for (const check of d.checks) {
      expect(check).toEqual({
        type: check.type, status: 'pending', error_code: null, observed_at: null,
        message: check.message === null ? null : expect.any(String),
        next_check_at: check.next_check_at === null ? null : expect.stringMatching(TIMESTAMP),
      });
    }

    const read = await api.request('GET', `/v1/domains/${d.id}`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(d);

    const requested = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.domainCheckRequested)))
      .map((row) => row.payload as { domain_id: string; reason: string })
      .filter((p) => p.domain_id === d.id);
    expect(requested).toEqual([expect.objectContaining({ domain_id: d.id, reason: 'created' })]);
  });

  it('gets metadata {} when it is omitted, and its own challenge token', async () => {
    const a = await create({ hostname: 'plain-a.example.com', reference: 'ws-1' });
    const b = await create({ hostname: 'plain-b.example.com', reference: 'ws-1' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.metadata).toEqual({});
    expect(a.body.dns_records[0].value).not.toBe(b.body.dns_records[0].value);
  });

  it('accepts metadata at its bounds: 32 keys, 64-code-point keys, 512-code-point values', async () => {
    const metadata: Record<string, unknown> = {};
    for (let i = 0; i < 30; i++) metadata[`k${i}`] = i % 2 ? i : `v${i}`;
    metadata['🔑'.repeat(64)] = 'x'.repeat(512);
    metadata['k'.repeat(64)] = '✓'.repeat(512);
    const res = await create({ hostname: 'meta-bounds.example.com', reference: 'ws', metadata });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual(metadata);
  });

  it('takes the empty string as a metadata value, and reads it back as one', async () => {
    const metadata = { note: '', plan: 'pro' };
    const res = await create({ hostname: 'meta-empty.example.com', reference: 'ws', metadata });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual(metadata);
    const read = await api.request('GET', `/v1/domains/${res.body.id}`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body.metadata).toEqual(metadata);
  });
});

describe('metadata rules', () => {
  const tooMany = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]));
  const cases: Array<[string, unknown]> = [
    ['33 keys', tooMany],
    ['a 65-character key', { ['k'.repeat(65)]: 'v' }],
    ['an empty key', { '': 'v' }],
    ['a 513-character value', { note: 'x'.repeat(513) }],
    ['a nested object', { nested: { a: 1 } }],
    ['an array value', { list: [1, 2] }],
    ['null metadata', null],
    ['an array as metadata', ['a']],
    ['a string as metadata', 'plan=pro'],
  ];
  it.each(cases)('refuses %s with validation_error on metadata', async (_name, metadata) => {
    const hostname = `meta-${Math.random().toString(36).slice(2)}.example.com`;
    const res = await create({ hostname, reference: 'ws', metadata });
    expectValidationError(res, 'body', 'metadata');
    expect(await liveHostnames()).not.toContain(hostname);
  });
});

describe('hostname normalization', () => {
  const accepted: Array<[string, string]> = [
    ['  Norm.Example.COM.  ', 'norm.example.com'],
    ['Bücher.Example.com', 'xn--bcher-kva.example.com'],
    ['a.b.c.example.co.uk', 'a.b.c.example.co.uk'],
    ['www.foo.github.io', 'www.foo.github.io'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(24)}.example.com`, `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(24)}.example.com`],
  ];
  it.each(accepted)('stores %j as %s', async (input, stored) => {
    const res = await create({ hostname: input, reference: 'ws' });
    expect(res.status).toBe(201);
    expect(res.body.hostname).toBe(stored);
    expect(res.body.dns_records.map((r: { name: string }) => r.name)).toEqual([`_custom-domain-challenge.${stored}`, stored]);
  });

  const refused: Array<[string, string]> = [
    ['', 'empty_hostname'],
    ['   ', 'empty_hostname'],
    ['*.example.com', 'wildcard_not_supported'],
    ['shop.*.example.com', 'wildcard_not_supported'],
    ['127.1', 'ip_literal_not_supported'],
    ['0x7f.0.0.1', 'ip_literal_not_supported'],
    ['[::1]', 'ip_literal_not_supported'],
    ['2001:db8::1', 'ip_literal_not_supported'],
    ['shop.example.com:8080', 'invalid_hostname'],
    ['https://shop.example.com/', 'invalid_hostname'],
    ['localhost', 'invalid_hostname'],
    ['co.uk', 'invalid_hostname'],
    ['github.io', 'invalid_hostname'],
    ['example.net', 'invalid_hostname'],
    ['shop.edge.example.net', 'invalid_hostname'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(25)}.example.com`, 'hostname_too_long'],
    ['a_b.example.com', 'invalid_label'],
    ['-shop.example.com', 'invalid_label'],
    ['shop..example.com', 'invalid_label'],
    [`${'a'.repeat(64)}.example.com`, 'invalid_label'],
    ['example.com', 'apex_not_supported'],
    ['EXAMPLE.com.', 'apex_not_supported'],
    ['foo.github.io', 'apex_not_supported'],
  ];
  it.each(refused)('refuses %j with 422 %s', async (hostname, code) => {
    const details = expectError(await create({ hostname, reference: 'ws' }), 422, code);
    if (code === 'apex_not_supported') expect(details.field).toBe('hostname');
  });

  it.each([
    ['a missing hostname', { reference: 'ws' }],
    ['a number', { hostname: 42, reference: 'ws' }],
    ['null', { hostname: null, reference: 'ws' }],
  ])('refuses %s with validation_error on hostname', async (_name, body) => {
    expectValidationError(await create(body), 'body', 'hostname');
  });
});

describe('reference rules', () => {
  it('accepts 1 and 255 characters verbatim', async () => {
    for (const [hostname, reference] of [['ref-1.example.com', 'r'], ['ref-255.example.com', 'r'.repeat(255)]]) {
      const res = await create({ hostname, reference });
      expect(res.status).toBe(201);
      expect(res.body.reference).toBe(reference);
    }
  });

  it.each([['empty', ''], ['256 characters', 'r'.repeat(256)]])('refuses a reference that is %s with invalid_reference', async (_name, reference) => {
    const hostname = `ref-bad-${reference.length}.example.com`;
    expectError(await create({ hostname, reference }), 422, 'invalid_reference');
    expect(await liveHostnames()).not.toContain(hostname);
  });

  it.each([
    ['missing', { hostname: 'ref-missing.example.com' }],
    ['a number', { hostname: 'ref-number.example.com', reference: 42 }],
    ['null', { hostname: 'ref-null.example.com', reference: null }],
  ])('refuses a reference that is %s with validation_error', async (_name, body) => {
    expectValidationError(await create(body), 'body', 'reference');
  });
});

describe('the body', () => {
  it('refuses an unknown field with validation_error naming it', async () => {
    const res = await create({ hostname: 'unknown-field.example.com', reference: 'ws', owner: 'me' });
    expectValidationError(res, 'body', 'owner');
    expect(await liveHostnames()).not.toContain('unknown-field.example.com');
  });

  it.each([
    ['broken JSON', '{"hostname": "broken.example.com", ', 'application/json'],
    ['a form body', 'hostname=form.example.com&reference=ws', 'application/x-www-form-urlencoded'],
    ['plain text', 'form.example.com', 'text/plain'],
    ['a JSON array', '["form.example.com"]', 'application/json'],
    ['no body at all', '', 'application/json'],
  ])('answers %s with 422 validation_error', async (_name, rawBody, contentType) => {
    const res = await api.request('POST', '/v1/domains', { token: key, rawBody, headers: { 'content-type': contentType } });
    expectError(res, 422, 'validation_error');
    expect(Array.isArray(res.body.error.details.errors)).toBe(true);
  });

  it('refuses a body over 64 KiB with 413 payload_too_large; exactly 64 KiB is read', async () => {
    const bodyOf = (size: number) => {
      const base = JSON.stringify({ hostname: 'big.example.com', reference: 'ws', pad: '' });
      return JSON.stringify({ hostname: 'big.example.com', reference: 'ws', pad: 'x'.repeat(size - base.length) });
    };
    const headers = { 'content-type': 'application/json' };
    expect(Buffer.byteLength(bodyOf(65_537))).toBe(65_537);
    expectError(await api.request('POST', '/v1/domains', { token: key, rawBody: bodyOf(65_537), headers }), 413, 'payload_too_large');
    // 65 536 bytes fit: the body is parsed and refused for its unknown field instead.
    expectValidationError(await api.request('POST', '/v1/domains', { token: key, rawBody: bodyOf(65_536), headers }), 'body', 'pad');
    expect(await liveHostnames()).not.toContain('big.example.com');
  });
});

describe('hostname claims', () => {
  it('refuses a live hostname in the same and another application, and frees it at once on delete', async () => {
    const first = await create({ hostname: 'claim.example.com', reference: 'ws' });
    expect(first.status).toBe(201);
    expectError(await create({ hostname: 'claim.example.com', reference: 'other' }), 409, 'hostname_already_claimed');
    expectError(await create({ hostname: ' CLAIM.Example.com. ', reference: 'ws' }), 409, 'hostname_already_claimed');
    expectError(await create({ hostname: 'claim.example.com', reference: 'ws' }, otherKey), 409, 'hostname_already_claimed');
    expect(await liveHostnames(otherKey)).not.toContain('claim.example.com');

    expect((await api.request('DELETE', `/v1/domains/${first.body.id}`, { token: key })).status).toBe(202);
    const moved = await create({ hostname: 'claim.example.com', reference: 'ws' }, otherKey);
    expect(moved.status).toBe(201);
    expect(moved.body.id).not.toBe(first.body.id);
    expectError(await create({ hostname: 'claim.example.com', reference: 'ws' }), 409, 'hostname_already_claimed');
  });

  it('lets exactly one of 10 concurrent claims of one hostname win across two applications', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create({ hostname: 'race.example.com', reference: `ws-${i}` }, i % 2 ? key : otherKey)),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 201)) expectError(a, 409, 'hostname_already_claimed');
    const holders = [...(await liveHostnames()), ...(await liveHostnames(otherKey))].filter((h) => h === 'race.example.com');
    expect(holders).toHaveLength(1);
  });
});
