// Hostile and malformed requests against the application, legacy and operator
// APIs. Every answer must be below 500, carry the contract's error envelope
// with a contract code whose status it has (or be a documented success), and
// match the served OpenAPI document. Random inputs come from a seeded
// generator so a failure reproduces; the seed is in the failure message.
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { ERROR_STATUS, type ErrorCode } from '@cds/core';
import { randomSlug, startTestApi, type Answer, type TestApi } from '../../support/api-harness';

const SEED = 0x5eed_c0de;
const KIB = 1024;
const APPS = '/operator/v1/applications';
const UUID_NIL = '00000000-0000-0000-0000-000000000000';

interface Case {
  label: string;
  method: string;
  path: string;
  /** Defaults to the application key for /v1 and /domains, the operator token for /operator/v1; null sends none. */
  token?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string | Buffer;
  /** Where the contract fixes the answer, not just its form. */
  expect?: { status: number; code?: string };
}

/** mulberry32: small, fast and deterministic. */
class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const ODD_STRINGS = [
  '', ' ', '\t\n', 'a', 'shop.example.com', 'SHOP.Example.COM.', '*.example.com', '127.0.0.1', '[::1]', '0x7f.1',
  'xn--', 'bücher.example.de', '💥.example.com', 'a..b.com', '-a.example.com', 'a_b.example.com', 'co.uk', 'example.com',
  '\u0000', 'null\u0000byte.example.com', '\ud800', '\u202e', '\ufeff', '<script>alert(1)</script>', "' OR '1'='1", '../../etc/passwd',
  '%00', '%zz', '${jndi:ldap://x}', '{{7*7}}', 'true', 'null', '12', 'x'.repeat(256), 'é'.repeat(300), 'app-ok', 'free', 'active', 'suspended',
];
const ODD_NUMBERS = [0, -0, 1, -1, 1.5, -2.25, 255, 256, 1e21, -1e21, Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 53];
const FIELD_NAMES = [
  'hostname', 'reference', 'metadata', 'slug', 'name', 'contact_email', 'plan', 'limits', 'status', 'live_domains', 'credentials',
  '__proto__', 'constructor', 'prototype', '', ' ', 'toString', 'hasOwnProperty', 'id', 'application_id', '$where', 'a.b', '💥',
];

function randomValue(rng: Random, depth = 0): unknown {
  const kind = rng.int(depth > 3 ? 4 : 6);
  switch (kind) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.pick(ODD_NUMBERS);
    case 3: return rng.pick(ODD_STRINGS);
    case 4: return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
    default: {
      // No prototype, so a "__proto__" key is a real key that gets sent.
      const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (let i = rng.int(5); i > 0; i -= 1) out[rng.pick(FIELD_NAMES)] = randomValue(rng, depth + 1);
      return out;
    }
  }
}

/** An object with some of the endpoint's fields, each set to something random, sometimes with an extra key. */
function randomBody(rng: Random, fields: readonly string[]): unknown {
  if (rng.chance(0.2)) return randomValue(rng);
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const field of fields) if (rng.chance(0.7)) out[field] = randomValue(rng, 1);
  if (rng.chance(0.3)) out[rng.pick(FIELD_NAMES)] = randomValue(rng, 1);
  return out;
}

const WRONG_TYPES: Array<[string, unknown]> = [
  ['null', null], ['number', 7], ['float', -1.5], ['boolean', true], ['array', ['x']], ['object', { x: 1 }], ['string', 'seven'],
];

/** Each field of `valid` replaced by every value of another JSON type than its own. */
function wrongTypeBodies(valid: Record<string, unknown>, except: readonly string[] = []): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  for (const [field, value] of Object.entries(valid)) {
    const own = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    for (const [typeName, wrong] of WRONG_TYPES) {
      const kind = wrong === null ? 'null' : Array.isArray(wrong) ? 'array' : typeof wrong;
      if (kind === own || except.includes(`${field}:${typeName}`)) continue;
      out.push([`${field} as ${typeName}`, { ...valid, [field]: wrong }]);
    }
  }
  return out;
}

function nested(levels: number, open: string, close: string, inner = '1'): string {
  return open.repeat(levels) + inner + close.repeat(levels);
}

/** Raw bodies that are not (acceptable) JSON, with the answer the contract fixes for each. */
function malformedBodies(validJson: string): Array<{ label: string; raw: string | Buffer; type?: string; headers?: Record<string, string>; expect?: Case['expect'] }> {
  const invalid = { status: 422, code: 'validation_error' };
  return [
    { label: 'truncated object', raw: validJson.slice(0, validJson.length - 5), expect: invalid },
    { label: 'lone brace', raw: '{', expect: invalid },
    { label: 'lone bracket', raw: '[', expect: invalid },
    { label: 'unterminated string', raw: '"abc', expect: invalid },
    { label: 'truncated literal', raw: 'tru', expect: invalid },
    { label: 'NaN', raw: '{"hostname": NaN, "reference": NaN}', expect: invalid },
    { label: 'Infinity literal', raw: '{"a": Infinity}', expect: invalid },
    { label: 'single quotes', raw: "{'hostname': 'a.example.com'}", expect: invalid },
    { label: 'trailing comma', raw: '{"a": 1,}', expect: invalid },
    { label: 'comment', raw: '/* hi */ {}', expect: invalid },
    { label: 'two documents', raw: `${validJson}${validJson}`, expect: invalid },
    { label: 'garbage text', raw: 'hostname=a.example.com&reference=b', expect: invalid },
    { label: 'empty body', raw: '' },
    { label: 'whitespace body', raw: '   \n ' },
    { label: 'null', raw: 'null', expect: invalid },
    { label: 'true', raw: 'true', expect: invalid },
    { label: 'number', raw: '42', expect: invalid },
    { label: 'huge number', raw: '1e999999', expect: invalid },
    { label: 'negative fraction', raw: '-0.000001', expect: invalid },
    { label: 'string', raw: '"shop.example.com"', expect: invalid },
    { label: 'array', raw: `[${validJson}]`, expect: invalid },
    { label: 'empty array', raw: '[]', expect: invalid },
    { label: 'duplicate keys', raw: validJson.replace('{', '{"hostname":"dupe.example.com","slug":"dupe","name":"dupe",') },
    { label: 'duplicate keys with a wrong type last', raw: validJson.replace(/}$/, ',"reference":17,"name":17,"slug":17}'), expect: invalid },
    { label: '__proto__ key', raw: validJson.replace('{', '{"__proto__":{"isAdmin":true},'), expect: invalid },
    { label: 'constructor key', raw: validJson.replace('{', '{"constructor":{"prototype":{"x":1}},'), expect: invalid },
    { label: 'number overflow in a field', raw: validJson.replace(/}$/, ',"limits":{"live_domains":1e400},"metadata":{"n":1e400}}'), expect: invalid },
    { label: '10000 nested arrays', raw: nested(10_000, '[', ']'), expect: invalid },
    { label: '10000 nested objects', raw: nested(10_000, '{"a":', '}'), expect: invalid },
    { label: '10000 unclosed arrays', raw: '['.repeat(10_000), expect: invalid },
    { label: 'nesting in a field', raw: validJson.replace(/}$/, `,"metadata":${nested(5_000, '[', ']')}}`), expect: invalid },
    { label: 'over 64 KiB', raw: `{"hostname":"${'a'.repeat(70 * KIB)}"}`, expect: { status: 413, code: 'payload_too_large' } },
    { label: '1 MiB of spaces', raw: ' '.repeat(1024 * KIB), expect: { status: 413, code: 'payload_too_large' } },
    { label: 'invalid UTF-8 bytes', raw: Buffer.concat([Buffer.from('{"hostname":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('.example.com","reference":"r","slug":"x","name":"n"}')]) },
    { label: 'invalid UTF-8 outside strings', raw: Buffer.from([0x7b, 0xff, 0x7d]), expect: invalid },
    { label: 'UTF-8 BOM', raw: `\ufeff${validJson}` },
    { label: 'NUL bytes', raw: Buffer.from([0x00, 0x00, 0x7b, 0x7d]), expect: invalid },
    { label: 'missing content type', raw: Buffer.from(validJson), type: '' },
    { label: 'text/plain', raw: validJson, type: 'text/plain' },
    { label: 'form encoded', raw: 'hostname=a.example.com&reference=r', type: 'application/x-www-form-urlencoded' },
    { label: 'multipart', raw: '--x\r\nContent-Disposition: form-data; name="hostname"\r\n\r\na.example.com\r\n--x--', type: 'multipart/form-data; boundary=x' },
    { label: 'xml', raw: '<hostname>a.example.com</hostname>', type: 'application/xml' },
    { label: 'malformed content type', raw: validJson, type: 'application/json; charset' },
    { label: 'content type garbage', raw: validJson, type: ';;;/=' },
    { label: 'charset latin1', raw: Buffer.from(validJson, 'latin1'), type: 'application/json; charset=latin1', expect: invalid },
    { label: 'charset iso-8859-1', raw: Buffer.from(validJson, 'latin1'), type: 'application/json; charset=iso-8859-1', expect: invalid },
    { label: 'charset utf-16 with utf-16le bytes', raw: Buffer.from(`\ufeff${validJson}`, 'utf16le'), type: 'application/json; charset=utf-16' },
    { label: 'charset utf-16 with utf-8 bytes', raw: validJson, type: 'application/json; charset=utf-16' },
    { label: 'charset made up', raw: validJson, type: 'application/json; charset=klingon', expect: invalid },
    { label: 'vendor json type', raw: validJson, type: 'application/vnd.custom+json' },
    { label: 'gzip garbage', raw: Buffer.from('this is not gzip at all'), headers: { 'content-encoding': 'gzip' }, expect: invalid },
    { label: 'deflate garbage', raw: Buffer.from([1, 2, 3, 4, 5]), headers: { 'content-encoding': 'deflate' }, expect: invalid },
    { label: 'brotli garbage', raw: Buffer.from([0xff, 0xff, 0xff]), headers: { 'content-encoding': 'br' }, expect: invalid },
    { label: 'unknown encoding', raw: validJson, headers: { 'content-encoding': 'compress' }, expect: invalid },
    { label: 'gzip of garbage text', raw: gzipSync('not json at all'), headers: { 'content-encoding': 'gzip' }, expect: invalid },
    { label: 'truncated gzip', raw: gzipSync(validJson).subarray(0, 12), headers: { 'content-encoding': 'gzip' }, expect: invalid },
    { label: 'gzip bomb', raw: gzipSync(Buffer.alloc(8 * 1024 * KIB, 0x20)), headers: { 'content-encoding': 'gzip' }, expect: { status: 413, code: 'payload_too_large' } },
    { label: 'valid gzip', raw: gzipSync(validJson), headers: { 'content-encoding': 'gzip' } },
  ];
}

const QUERY_NUMBERS = ['0', '-1', '1.5', '-0.5', '201', 'abc', 'NaN', 'Infinity', '-Infinity', '1e3', '0x10', '9'.repeat(400), '', '%00', '%E2%82%AC', '%FF', '%', '1%00', '+5', ' 7', '5.0', '1e-7', '[]', '{}', 'null', 'true'];
const QUERY_SHAPES = (name: string): string[] => [
  `${name}=1&${name}=2`, `${name}[]=1`, `${name}[a]=1`, `${name}[0]=1&${name}[1]=2`, `${name}.a=1`, `${name}`, `${name}=`, `${name}==`, `&&${name}=1&&`,
  `${name}%00=1`, `${encodeURIComponent(name)}=${'z'.repeat(8 * KIB)}`,
];
const QUERY_BOOLEANS = ['yes', 'no', '1', '0', 'TRUE', 'False', '', 'true ', 'on', 'null', '%00', 'true&include_deleted=false'];

function buildCases(ctx: { key: string; domainId: string; patchSlug: string; deleteSlug: string }, rng: Random): Case[] {
  const cases: Case[] = [];
  const invalid = { status: 422, code: 'validation_error' };
  const validDomain = { hostname: 'valid-1.bad-input-test.com', reference: 'workspace-1' };
  const validApp = { slug: 'bad-input-valid', name: 'Valid', contact_email: 'a@b.example', plan: 'free', limits: { live_domains: 3 } };
  const validPatch = { name: 'Patched', contact_email: 'x@y.example', status: 'active', plan: 'free', limits: { credentials: 2 } };

  // Malformed raw bodies and wrong content types: all of them go to one endpoint of each
  // API; the same parser serves the others, which get a random third (runtime: these
  // suites run twice on 2 cores).
  const bodyTargets: Array<[string, string, string, number]> = [
    ['POST', '/v1/domains', JSON.stringify(validDomain), 1],
    ['POST', APPS, JSON.stringify(validApp), 1],
    ['POST', '/domains', JSON.stringify({ ...validDomain, hostname: 'valid-2.bad-input-test.com' }), 1 / 3],
    ['PATCH', `${APPS}/${ctx.patchSlug}`, JSON.stringify(validPatch), 1 / 3],
  ];
  for (const [method, path, validJson, share] of bodyTargets) {
    for (const m of malformedBodies(validJson).filter(() => share === 1 || rng.chance(share))) {
      const headers: Record<string, string> = { ...(m.headers ?? {}) };
      if (m.type !== '') headers['content-type'] = m.type ?? 'application/json';
      cases.push({ label: `${method} ${path}: ${m.label}`, method, path, rawBody: m.raw, headers, expect: m.expect });
    }
  }
  // Bodies on endpoints that take none.
  for (const [method, path] of [
    ['POST', `/v1/domains/${ctx.domainId}/checks`], ['DELETE', `/v1/domains/${UUID_NIL}`], ['POST', `/domains/${UUID_NIL}/checks`],
    ['DELETE', `${APPS}/${ctx.deleteSlug}`], ['POST', `${APPS}/${ctx.deleteSlug}/credentials/${UUID_NIL}/revoke`],
  ] as const) {
    for (const raw of ['{', nested(10_000, '[', ']'), '{"confirm":"x"}', `"${'b'.repeat(70 * KIB)}"`]) {
      cases.push({ label: `${method} ${path} with body ${raw.slice(0, 12)}`, method, path, rawBody: raw, headers: { 'content-type': 'application/json' } });
    }
  }

  // Wrong types for every field.
  for (const [label, body] of wrongTypeBodies(validDomain)) {
    cases.push({ label: `POST /v1/domains: ${label}`, method: 'POST', path: '/v1/domains', body, expect: invalid });
  }
  for (const [label, metadata] of [
    ['metadata as null', null], ['metadata as array', []], ['metadata as string', 'x'], ['metadata as number', 3],
    ['metadata value object', { a: { b: 1 } }], ['metadata value array', { a: [1] }], ['metadata empty key', { '': 1 }],
    ['metadata key of 65', { ['k'.repeat(65)]: 1 }], ['metadata value of 513', { a: 'v'.repeat(513) }],
    ['metadata with 33 keys', Object.fromEntries(Array.from({ length: 33 }, (_v, i) => [`k${i}`, i]))],
  ] as Array<[string, unknown]>) {
    cases.push({ label: `POST /v1/domains: ${label}`, method: 'POST', path: '/v1/domains', body: { ...validDomain, metadata }, expect: invalid });
  }
  for (const [label, body] of wrongTypeBodies(validApp, ['contact_email:null'])) {
    cases.push({ label: `POST ${APPS}: ${label}`, method: 'POST', path: APPS, body, expect: invalid });
  }
  for (const [label, body] of wrongTypeBodies(validPatch, ['contact_email:null'])) {
    cases.push({ label: `PATCH ${APPS}/…: ${label}`, method: 'PATCH', path: `${APPS}/${ctx.patchSlug}`, body, expect: invalid });
  }
  for (const value of [1e308, -1, 0.5, Number.MAX_SAFE_INTEGER + 2, '5', null, true, [], {}]) {
    cases.push({ label: `PATCH limits.live_domains ${JSON.stringify(value)}`, method: 'PATCH', path: `${APPS}/${ctx.patchSlug}`, body: { limits: { live_domains: value } }, expect: invalid });
  }

  // Huge strings (60 KiB, under the body limit) in every string field.
  const huge = 'h'.repeat(60 * KIB);
  cases.push(
    { label: 'huge hostname', method: 'POST', path: '/v1/domains', body: { ...validDomain, hostname: huge }, expect: { status: 422, code: 'hostname_too_long' } },
    { label: 'huge dotted hostname', method: 'POST', path: '/v1/domains', body: { ...validDomain, hostname: 'a.'.repeat(30 * KIB) + 'com' } },
    { label: 'huge reference', method: 'POST', path: '/v1/domains', body: { ...validDomain, reference: huge }, expect: { status: 422, code: 'invalid_reference' } },
    { label: 'huge metadata value', method: 'POST', path: '/v1/domains', body: { ...validDomain, metadata: { a: huge } }, expect: invalid },
    { label: 'huge metadata key', method: 'POST', path: '/v1/domains', body: { ...validDomain, metadata: { [huge]: 1 } }, expect: invalid },
    { label: 'huge legacy hostname', method: 'POST', path: '/domains', body: { ...validDomain, hostname: huge }, expect: { status: 422, code: 'hostname_too_long' } },
    { label: 'huge slug', method: 'POST', path: APPS, body: { ...validApp, slug: huge }, expect: invalid },
    { label: 'huge name', method: 'POST', path: APPS, body: { ...validApp, name: huge }, expect: invalid },
    { label: 'huge email', method: 'POST', path: APPS, body: { ...validApp, contact_email: `${huge}@x.example` }, expect: invalid },
    { label: 'huge patch name', method: 'PATCH', path: `${APPS}/${ctx.patchSlug}`, body: { name: huge }, expect: invalid },
    { label: 'huge unknown key', method: 'PATCH', path: `${APPS}/${ctx.patchSlug}`, body: { [huge]: 1 }, expect: invalid },
  );

  // NUL characters: PostgreSQL text and jsonb cannot hold them.
  cases.push(
    { label: 'NUL in hostname', method: 'POST', path: '/v1/domains', body: { hostname: 'nul\u0000.bad-input-test.com', reference: 'r' } },
    { label: 'NUL in reference', method: 'POST', path: '/v1/domains', body: { hostname: 'nul-1.bad-input-test.com', reference: 'a\u0000b' } },
    { label: 'NUL in a metadata key', method: 'POST', path: '/v1/domains', body: { hostname: 'nul-2.bad-input-test.com', reference: 'r', metadata: { 'k\u0000': 'v' } } },
    { label: 'NUL in a metadata value', method: 'POST', path: '/v1/domains', body: { hostname: 'nul-3.bad-input-test.com', reference: 'r', metadata: { k: 'v\u0000' } } },
    { label: 'NUL in a legacy reference', method: 'POST', path: '/domains', body: { hostname: 'nul-4.bad-input-test.com', reference: '\u0000' } },
    { label: 'NUL in an application name', method: 'POST', path: APPS, body: { slug: 'nul-app', name: 'n\u0000' } },
    { label: 'NUL in a contact email', method: 'POST', path: APPS, body: { slug: 'nul-app-2', name: 'n', contact_email: 'a\u0000@b.example' } },
    { label: 'NUL in a patched name', method: 'PATCH', path: `${APPS}/${ctx.patchSlug}`, body: { name: 'x\u0000' } },
    { label: 'NUL in a credential name', method: 'POST', path: `${APPS}/${ctx.patchSlug}/credentials`, body: { name: '\u0000' } },
    { label: 'NUL in a rotated credential name', method: 'POST', path: `${APPS}/${ctx.patchSlug}/credentials/${UUID_NIL}/rotate`, body: { name: '\u0000' } },
  );

  // Random bodies.
  for (let i = 0; i < 40; i += 1) {
    cases.push({ label: `random domain body #${i}`, method: 'POST', path: rng.chance(0.8) ? '/v1/domains' : '/domains', body: randomBody(rng, ['hostname', 'reference', 'metadata']) });
  }
  for (let i = 0; i < 20; i += 1) {
    cases.push({ label: `random application body #${i}`, method: 'POST', path: APPS, body: randomBody(rng, ['slug', 'name', 'contact_email', 'plan', 'limits']) });
  }
  for (let i = 0; i < 20; i += 1) {
    cases.push({ label: `random patch body #${i}`, method: 'PATCH', path: `${APPS}/${ctx.patchSlug}`, body: randomBody(rng, ['name', 'contact_email', 'plan', 'limits']) });
  }

  // Query strings.
  for (const v of QUERY_NUMBERS) {
    const list = rng.chance(0.7) ? '/v1/domains' : '/domains';
    cases.push({ label: `GET ${list}?limit=${v.slice(0, 20)}`, method: 'GET', path: `${list}?limit=${v}` });
    if (rng.chance(0.5)) cases.push({ label: `GET ${list}?offset=${v.slice(0, 20)}`, method: 'GET', path: `${list}?offset=${v}` });
  }
  for (const v of QUERY_BOOLEANS) {
    const list = rng.chance(0.7) ? '/v1/domains' : '/domains';
    cases.push({ label: `GET ${list}?include_deleted=${v}`, method: 'GET', path: `${list}?include_deleted=${v}` });
  }
  for (const name of ['limit', 'offset', 'include_deleted', 'status', 'reference']) {
    for (const q of QUERY_SHAPES(name)) cases.push({ label: `GET /v1/domains?${q.slice(0, 40)}`, method: 'GET', path: `/v1/domains?${q}` });
  }
  for (const q of ['status=READY', 'status=deleted', 'status=', 'status=ready&status=ready', `reference=${'r'.repeat(256)}`, 'reference=%F0%9F%92%A5', 'reference=%00', 'reference=%ED%A0%80', 'unknown=1&limit=5', '?limit=5', 'limit=5#frag', 'offset=1e400', `offset=${'9'.repeat(30)}`]) {
    cases.push({ label: `GET /v1/domains?${q.slice(0, 40)}`, method: 'GET', path: `/v1/domains?${q}` });
  }
  cases.push(
    { label: 'limit=1&limit=2 is a validation_error', method: 'GET', path: '/v1/domains?limit=1&limit=2', expect: invalid },
    { label: 'limit=abc is a validation_error', method: 'GET', path: '/v1/domains?limit=abc', expect: invalid },
    { label: 'limit=0 is a validation_error', method: 'GET', path: '/v1/domains?limit=0', expect: invalid },
    { label: 'limit=201 is a validation_error', method: 'GET', path: '/v1/domains?limit=201', expect: invalid },
    { label: 'offset=-1 is a validation_error', method: 'GET', path: '/v1/domains?offset=-1', expect: invalid },
    { label: 'include_deleted=yes is a validation_error', method: 'GET', path: '/v1/domains?include_deleted=yes', expect: invalid },
    { label: 'an unknown query parameter is ignored', method: 'GET', path: '/v1/domains?colour=blue', expect: { status: 200 } },
  );

  // Ids in paths.
  const ids = ['not-a-uuid', '%00', '%FF', '%', '%2E%2E%2F%2E%2E', 'a'.repeat(4 * KIB), `${ctx.domainId}x`, ctx.domainId.toUpperCase(),
    UUID_NIL, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-4000-8000-000000000000', '%E2%82%AC', "1'%20OR%20'1'='1", '%20', '-1', '1e3'];
  for (const id of ids) {
    const prefix = rng.chance(0.7) ? '/v1/domains' : '/domains';
    cases.push({ label: `GET ${prefix}/${id.slice(0, 40)}`, method: 'GET', path: `${prefix}/${id}` });
    cases.push({ label: `POST ${prefix}/${id.slice(0, 40)}/checks`, method: 'POST', path: `${prefix}/${id}/checks` });
    cases.push({ label: `DELETE ${prefix}/${id.slice(0, 40)}`, method: 'DELETE', path: `${prefix}/${id}` });
  }
  cases.push(
    { label: 'a path id that is not a uuid is domain_not_found', method: 'GET', path: '/v1/domains/not-a-uuid', expect: { status: 404, code: 'domain_not_found' } },
    { label: 'a legacy path id that is not a uuid is domain_not_found', method: 'DELETE', path: '/domains/12', expect: { status: 404, code: 'domain_not_found' } },
    { label: 'an unknown uuid is domain_not_found', method: 'POST', path: `/v1/domains/${UUID_NIL}/checks`, expect: { status: 404, code: 'domain_not_found' } },
    { label: 'an undecodable path id is domain_not_found', method: 'GET', path: '/v1/domains/%FF', expect: { status: 404, code: 'domain_not_found' } },
    { label: 'an undecodable legacy path id is domain_not_found', method: 'POST', path: '/domains/%E2%82/checks', expect: { status: 404, code: 'domain_not_found' } },
    { label: 'an undecodable slug is application_not_found', method: 'PATCH', path: `${APPS}/%FF`, body: { name: 'n' }, expect: { status: 404, code: 'application_not_found' } },
    { label: 'a slug with NUL is application_not_found', method: 'DELETE', path: `${APPS}/a%00b?confirm=ab`, expect: { status: 404, code: 'application_not_found' } },
    { label: 'an undecodable credential id is credential_not_found', method: 'POST', path: `${APPS}/${ctx.patchSlug}/credentials/%ZZ/revoke`, expect: { status: 404, code: 'credential_not_found' } },
  );
  for (const q of ['include_deleted=yes', 'include_deleted=1&include_deleted=2', 'include_deleted[a]=true', 'include_deleted=%00']) {
    cases.push({ label: `GET /v1/domains/{id}?${q}`, method: 'GET', path: `/v1/domains/${ctx.domainId}?${q}` });
  }

  // Operator: slugs in paths and DELETE queries.
  for (const slug of ['%00', 'A', 'a', '-x', 'x'.repeat(4 * KIB), '%FF', '%', '%2E%2E', "x'--", '%E2%82%AC', 'app%20x']) {
    cases.push({ label: `PATCH ${APPS}/${slug.slice(0, 20)}`, method: 'PATCH', path: `${APPS}/${slug}`, body: { name: 'n' } });
    cases.push({ label: `DELETE ${APPS}/${slug.slice(0, 20)}`, method: 'DELETE', path: `${APPS}/${slug}?confirm=${slug}` });
  }
  const del = `${APPS}/${ctx.deleteSlug}`;
  for (const q of [
    '', 'confirm', 'confirm=', `confirm=${ctx.deleteSlug}&confirm=${ctx.deleteSlug}`, `confirm[a]=${ctx.deleteSlug}`, `confirm[]=${ctx.deleteSlug}`,
    `confirm=${ctx.deleteSlug}%00`, `confirm=%00${ctx.deleteSlug}`, `confirm=${'c'.repeat(8 * KIB)}`, 'confirm=%FF', `confirm=${ctx.deleteSlug.toUpperCase()}`,
    `confirm=${ctx.deleteSlug}&delete_domains=yes`, `confirm=${ctx.deleteSlug}&delete_domains=1`, `confirm=${ctx.deleteSlug}&delete_domains=true&delete_domains=false`,
    `confirm=${ctx.deleteSlug}&delete_domains[a]=true`, `confirm=${ctx.deleteSlug}&delete_domains=`, `confirm=${ctx.deleteSlug}&delete_domains=TRUE`,
    `confirm=x&delete_domains=${'t'.repeat(8 * KIB)}`,
  ]) {
    cases.push({ label: `DELETE ${APPS}/{slug}?${q.slice(0, 40)}`, method: 'DELETE', path: `${del}?${q}` });
  }
  cases.push(
    { label: 'delete_domains=yes is a validation_error', method: 'DELETE', path: `${del}?confirm=${ctx.deleteSlug}&delete_domains=yes`, expect: invalid },
    { label: 'a missing confirm is confirmation_required', method: 'DELETE', path: `${del}?delete_domains=true`, expect: { status: 422, code: 'confirmation_required' } },
  );

  // Headers: Idempotency-Key variants, long values, odd credentials.
  const idem = (label: string, key: string, body: unknown, expected?: Case['expect']): Case => ({
    label: `Idempotency-Key ${label}`, method: 'POST', path: '/v1/domains', headers: { 'idempotency-key': key }, body, expect: expected,
  });
  const first = { hostname: 'idem-1.bad-input-test.com', reference: 'r' };
  cases.push(
    idem('empty', '', first, invalid),
    idem('of 256 characters', 'k'.repeat(256), first, invalid),
    idem('of 8 KiB', 'k'.repeat(8 * KIB), first, invalid),
    idem('of 255 characters', 'k'.repeat(255), first, { status: 201 }),
    idem('of 255 characters replayed', 'k'.repeat(255), first, { status: 200 }),
    idem('reused with another body', 'k'.repeat(255), { ...first, reference: 'other' }, { status: 422, code: 'idempotency_key_reused' }),
    idem('with spaces', '  spaced key  ', { hostname: 'idem-2.bad-input-test.com', reference: 'r' }),
    idem('list-like', 'a, b, c', { hostname: 'idem-3.bad-input-test.com', reference: 'r' }),
    idem('with odd characters', '%00<>"\'\\;{}', { hostname: 'idem-4.bad-input-test.com', reference: 'r' }),
    idem('on an invalid body', 'bad-body-key', { hostname: 7 }, invalid),
    idem('on an invalid body replayed', 'bad-body-key', { hostname: 7 }, invalid),
    idem('on a refused hostname', 'refused-key', { hostname: '*.example.com', reference: 'r' }, { status: 422, code: 'wildcard_not_supported' }),
    idem('on a refused hostname replayed', 'refused-key', { hostname: '*.example.com', reference: 'r' }, { status: 422, code: 'wildcard_not_supported' }),
    { label: 'Idempotency-Key on malformed JSON', method: 'POST', path: '/v1/domains', headers: { 'idempotency-key': 'malformed', 'content-type': 'application/json' }, rawBody: '{', expect: invalid },
  );
  const long = 'v'.repeat(8 * KIB);
  cases.push(
    { label: 'long unknown header', method: 'GET', path: '/v1/domains', headers: { 'x-long': long }, expect: { status: 200 } },
    { label: 'long bearer token', method: 'GET', path: '/v1/domains', token: null, headers: { authorization: `Bearer ${long}` }, expect: { status: 401, code: 'unauthorized' } },
    { label: 'long operator token', method: 'GET', path: APPS, token: null, headers: { authorization: `Bearer ${long}` }, expect: { status: 401, code: 'unauthorized' } },
    { label: 'long content type', method: 'POST', path: '/v1/domains', headers: { 'content-type': `application/json; x=${long}` }, rawBody: JSON.stringify(validDomain) },
    { label: 'long accept', method: 'GET', path: '/v1/domains', headers: { accept: long } },
    { label: 'long content-encoding', method: 'POST', path: '/v1/domains', headers: { 'content-type': 'application/json', 'content-encoding': long }, rawBody: '{}', expect: invalid },
    { label: 'long x-forwarded-for', method: 'GET', path: APPS, headers: { 'x-forwarded-for': Array.from({ length: 500 }, (_v, i) => `10.0.${i % 250}.1`).join(', ') } },
    { label: 'no credential', method: 'POST', path: '/v1/domains', token: null, body: validDomain, expect: { status: 401, code: 'unauthorized' } },
    { label: 'credential in the query', method: 'GET', path: `/v1/domains?api_key=${ctx.key}&access_token=${ctx.key}`, token: null, expect: { status: 401, code: 'unauthorized' } },
    { label: 'credential in a cookie', method: 'GET', path: '/v1/domains', token: null, headers: { cookie: `api_key=${ctx.key}` }, expect: { status: 401, code: 'unauthorized' } },
    { label: 'credential with an upper-case prefix', method: 'GET', path: '/v1/domains', token: null, headers: { authorization: `Bearer ${ctx.key.replace('cd_', 'CD_')}` }, expect: { status: 401, code: 'unauthorized' } },
    { label: 'two bearer credentials', method: 'GET', path: '/v1/domains', token: null, headers: { authorization: `Bearer ${ctx.key}, Bearer ${ctx.key}` }, expect: { status: 401, code: 'unauthorized' } },
    { label: 'legacy without credential', method: 'GET', path: '/domains', token: null, expect: { status: 401, code: 'unauthorized' } },
  );
  return cases;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What is wrong with one answer; empty when it is fine. */
function problemsOf(api: TestApi, c: Case, res: Answer): string[] {
  const problems: string[] = [];
  const contentType = res.headers.get('content-type');
  if (res.status >= 500) problems.push(`status ${res.status}`);
  if (res.status >= 400) {
    const error = isRecord(res.body) ? res.body.error : undefined;
    if (!contentType?.startsWith('application/json') || !isRecord(res.body) || Object.keys(res.body).join() !== 'error' || !isRecord(error)) {
      problems.push(`not the error envelope: ${contentType} ${res.text.slice(0, 120)}`);
    } else {
      const { code, message, details } = error;
      if (typeof code !== 'string' || !(code in ERROR_STATUS)) problems.push(`code ${JSON.stringify(code)} is not a contract code`);
      else if (ERROR_STATUS[code as ErrorCode] !== res.status) problems.push(`code ${code} with status ${res.status}`);
      if (typeof message !== 'string' || message === '') problems.push('message is not a non-empty string');
      if (!isRecord(details)) problems.push('details is not an object');
      if (code === 'validation_error') {
        const errors = isRecord(details) ? details.errors : undefined;
        const wellFormed = Array.isArray(errors) && errors.length > 0 && errors.every((e) => isRecord(e)
          && ['body', 'query', 'header'].includes(e.location as string) && typeof e.field === 'string' && typeof e.message === 'string' && typeof e.type === 'string');
        if (!wellFormed) problems.push(`details.errors malformed: ${JSON.stringify(details).slice(0, 200)}`);
      }
      if (code === 'rate_limited' && !/^\d+$/.test(res.headers.get('retry-after') ?? '')) problems.push('rate_limited without Retry-After');
    }
  }
  try {
    api.contract.check(c.method, c.path, res.status, res.body, contentType);
  } catch (err) {
    problems.push(`OpenAPI: ${(err as Error).message.split('\n')[0]}`);
  }
  if (c.path.startsWith('/domains') && res.headers.get('deprecation') !== 'true') problems.push('legacy answer without Deprecation: true');
  if (c.expect) {
    const code = isRecord(res.body) && isRecord(res.body.error) ? res.body.error.code : undefined;
    if (res.status !== c.expect.status || (c.expect.code !== undefined && code !== c.expect.code)) {
      problems.push(`expected ${c.expect.status} ${c.expect.code ?? ''}, got ${res.status} ${code ?? ''}`);
    }
  }
  return problems;
}

function getsWithBodies(ctx: { key: string; domainId: string; operatorToken: string }): Case[] {
  const json = { 'content-type': 'application/json' };
  return [
    { label: 'GET list with a broken body', method: 'GET', path: '/v1/domains', token: ctx.key, headers: json, rawBody: '{' },
    { label: 'GET one with a body over 64 KiB', method: 'GET', path: `/v1/domains/${ctx.domainId}`, token: ctx.key, headers: json, rawBody: `"${'g'.repeat(70 * KIB)}"` },
    { label: 'GET legacy list with deep nesting', method: 'GET', path: '/domains', token: ctx.key, headers: json, rawBody: nested(10_000, '[', ']') },
    { label: 'GET applications with a broken body', method: 'GET', path: APPS, token: ctx.operatorToken, headers: json, rawBody: '{' },
  ];
}

/** One request through node:http, which unlike fetch sends a body with GET. */
function getWithBody(baseUrl: string, c: Case): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(c.rawBody ?? '');
    const req = http.request(`${baseUrl}${c.path}`, {
      method: c.method,
      headers: { ...c.headers, authorization: `Bearer ${c.token ?? ''}`, 'content-length': String(body.length) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        const parsed: unknown = headers.get('content-type')?.startsWith('application/json') && text ? JSON.parse(text) : text;
        resolve({ status: res.statusCode ?? 0, headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

let api: TestApi;

beforeAll(async () => {
  // Many requests are refused on purpose: keep the throttles out of the way.
  api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: '100000', OPERATOR_AUTH_FAILURES_PER_MINUTE: '100000' });
});

afterAll(async () => {
  await api?.close();
});

test('malformed requests get contract errors, never a 5xx', async () => {
  const { key, slug } = await api.createApplication(undefined, { api_requests_per_minute: 100_000, live_domains: 100_000 });
  const patchSlug = randomSlug('patch');
  expect((await api.operator('POST', APPS, { slug: patchSlug, name: patchSlug })).status).toBe(201);
  const domain = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'seed.bad-input-test.com', reference: 'seed' } });
  expect(domain.status).toBe(201);
  // A live domain keeps the deletion target alive unless delete_domains=true really is sent.
  const { slug: deleteSlug, key: deleteKey } = await api.createApplication(randomSlug('delete'));
  expect((await api.request('POST', '/v1/domains', { token: deleteKey, body: { hostname: 'keep.bad-input-test.com', reference: 'keep' } })).status).toBe(201);

  const cases = buildCases({ key, domainId: domain.body.id as string, patchSlug, deleteSlug }, new Random(SEED));
  const failures: string[] = [];
  let answered = 0;
  for (const c of cases) {
    const token = c.token === undefined ? (c.path.startsWith('/operator/') ? api.operatorToken : key) : c.token;
    let res: Answer;
    try {
      res = await api.request(c.method, c.path, { token, headers: c.headers, body: c.body, rawBody: c.rawBody, unchecked: true });
    } catch (err) {
      failures.push(`${c.label}: no answer (${(err as Error).message})`);
      continue;
    }
    answered += 1;
    const problems = problemsOf(api, c, res);
    if (problems.length > 0) failures.push(`${c.label} [${c.method} ${c.path.slice(0, 80)}]: ${problems.join('; ')}`);
  }
  // fetch cannot send a body with GET; node:http can.
  const gets = getsWithBodies({ key, domainId: domain.body.id as string, operatorToken: api.operatorToken });
  for (const c of gets) {
    const res = await getWithBody(api.url, c);
    answered += 1;
    const problems = problemsOf(api, c, res);
    if (problems.length > 0) failures.push(`${c.label} [GET ${c.path.slice(0, 80)}]: ${problems.join('; ')}`);
  }
  expect(answered).toBeGreaterThanOrEqual(200);
  expect(answered).toBe(cases.length + gets.length);
  expect({ seed: SEED, failures }).toEqual({ seed: SEED, failures: [] });

  // The process still serves normal requests, and the targets are intact.
  const list = await api.request('GET', '/v1/domains', { token: key });
  expect(list.status).toBe(200);
  // The seed was deleted through its id in capitals: ids are case-insensitive on both databases.
  const seed = await api.request('GET', `/v1/domains/${domain.body.id as string}?include_deleted=true`, { token: key });
  expect(seed.status).toBe(200);
  expect(seed.body.status).toBe('deleting');
  const created = await api.request('POST', '/v1/domains', { token: key, body: { hostname: 'after.bad-input-test.com', reference: 'after' } });
  expect(created.status).toBe(201);
  expect((await api.operator('GET', `${APPS}/${slug}`)).status).toBe(200);
  expect((await api.operator('GET', `${APPS}/${deleteSlug}`)).status).toBe(200);
  expect((await api.request('GET', '/domains', { token: key })).status).toBe(200);
});
