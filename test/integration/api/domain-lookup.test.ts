// GET /operator/v1/domains/{hostname} (DECISIONS §15): the domain of a
// hostname across applications, with its application's slug, its certificate
// and its last check runs; the hostname normalized as at registration;
// include_deleted; the typed client's call. Check runs are written with plain
// SQL as the checker keeps them (one row per run in the slot of its number
// modulo ten).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, CustomDomainOperatorClient } from '../../../clients/typescript/src';
import { expectError, expectValidationError, startTestApi, type TestApi } from '../../support/api-harness';
import { insertCheckRuns, type StoredCheckRun, type StoredRunCheck } from '../../support/check-run-rows';
import { createThrowawayCa, type ThrowawayCa } from '../../support/throwaway-ca';

const UNLIMITED = { api_requests_per_minute: 100_000 };
const T = Date.parse('2026-05-01T10:00:00.000Z');
const PASSING: StoredRunCheck = ['passing', null, null];

let api: TestApi;
let ca: ThrowawayCa;
let app: { slug: string; key: string };

beforeAll(async () => {
  api = await startTestApi();
  ca = createThrowawayCa();
  await api.createApplication(undefined, UNLIMITED); // another tenant: the lookup is across applications
  app = await api.createApplication(undefined, UNLIMITED);
});

afterAll(async () => {
  await api?.close();
  ca?.remove();
});

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}.lookup.example.com`;

async function register(hostname: string): Promise<{ id: string; hostname: string }> {
  const res = await api.request('POST', '/v1/domains', { token: app.key, body: { hostname, reference: 'ws_42', metadata: { plan: 'pro' } } });
  if (res.status !== 201) throw new Error(`create ${hostname}: ${res.status} ${res.text}`);
  return res.body;
}

async function remove(id: string): Promise<void> {
  const res = await api.request('DELETE', `/v1/domains/${id}`, { token: app.key });
  if (res.status !== 202) throw new Error(`delete ${id}: ${res.status} ${res.text}`);
}

/** The domain as the application API shows it. */
const v1Domain = async (id: string) => (await api.request('GET', `/v1/domains/${id}?include_deleted=true`, { token: app.key })).body as Record<string, unknown>;

const lookup = (hostname: string, query = '') => api.operator('GET', `/operator/v1/domains/${encodeURIComponent(hostname)}${query}`);

/** Serial and SHA-256 fingerprint as openssl prints them, lowercase hex without separators. */
function opensslIdentity(pem: string): { serial: string; fingerprint: string } {
  const out = execFileSync('openssl', ['x509', '-noout', '-serial', '-fingerprint', '-sha256'], { input: pem, encoding: 'utf8' });
  const serial = /serial=([0-9A-F]+)/i.exec(out)?.[1] ?? '';
  const fingerprint = /Fingerprint=([0-9A-F:]+)/i.exec(out)?.[1] ?? '';
  return { serial: serial.toLowerCase(), fingerprint: fingerprint.replaceAll(':', '').toLowerCase() };
}

/** Run `n` of a domain, as the checker would keep it: slot n mod 10, thirty seconds after the previous one. */
function aRun(n: number, overrides: Partial<StoredCheckRun> = {}): StoredCheckRun {
  return {
    slot: n % 10, startedAt: new Date(T + n * 30_000), durationMs: 100 + n, trigger: n === 0 ? 'created' : 'schedule',
    statusBefore: 'ready', statusAfter: 'ready', checks: [PASSING, PASSING, PASSING, PASSING], ...overrides,
  };
}

const CHECK_TYPES = ['ownership', 'routing', 'certificate', 'origin'];

/** A stored run as the API shows it. */
const shown = (run: StoredCheckRun) => ({
  started_at: run.startedAt.toISOString(),
  duration_ms: run.durationMs,
  trigger: run.trigger,
  checks: run.checks.map(([status, errorCode, message], i) => ({ type: CHECK_TYPES[i], status, error_code: errorCode, message })),
  status_before: run.statusBefore,
  status_after: run.statusAfter,
});

describe('GET /operator/v1/domains/{hostname}', () => {
  it('answers the live domain with its application, its certificate and its last ten runs, newest first', async () => {
    const domain = await register(unique('shop'));
    await api.store.run((r) => r.certificates.save({
      hostname: domain.hostname, domainId: domain.id, issuer: 'acme', pemChain: `${ca.leaf.cert}${ca.caPem}`, keySealed: 'sealed',
      notBefore: new Date('2026-01-01T00:00:00.000Z'), notAfter: new Date('2026-04-01T00:00:00.000Z'), createdAt: new Date('2026-01-01T00:00:05.000Z'),
    }));
    // Runs 3 to 12: the ring has wrapped, so slot order is not time order.
    const runs = Array.from({ length: 10 }, (_, i) => aRun(i + 3));
    runs[9] = aRun(12, {
      trigger: 'confirm', durationMs: 2040,
      checks: [PASSING, ['failing', 'cname_not_found', `No CNAME record at ${domain.hostname}.`], ['passing', null, 'Valid until 2026-04-01.'], PASSING],
    });
    runs[8] = aRun(11, { trigger: 'recheck', statusBefore: 'attention_required', statusAfter: 'ready' });
    runs[7] = aRun(10, { trigger: 'edge', statusBefore: 'pending_dns', statusAfter: 'pending_dns', checks: [PASSING, ['pending', null, null], ['pending', null, 'Waits for ownership and routing.'], PASSING] });
    await insertCheckRuns(api.config.databaseUrl, domain.id, runs);

    const res = await lookup(domain.hostname);

    expect(res.status).toBe(200);
    const { serial, fingerprint } = opensslIdentity(ca.leaf.cert);
    expect(res.body).toEqual({
      ...(await v1Domain(domain.id)),
      application: app.slug,
      certificate: {
        issuer: 'acme',
        // Saved without its issuing directory (a certificate from before it was kept): the first configured one.
        directory_url: api.config.acmeDirectories[0]?.url,
        serial,
        not_before: '2026-01-01T00:00:00.000Z',
        not_after: '2026-04-01T00:00:00.000Z',
        renewal_after: '2026-03-02T00:00:00.000Z',
        fingerprint_sha256: fingerprint,
      },
      recent_runs: [...runs].reverse().map(shown),
    });
    expect(res.body.recent_runs.map((run: { trigger: string }) => run.trigger).slice(0, 4)).toEqual(['confirm', 'recheck', 'edge', 'schedule']);
    expect(serial).toMatch(/^[0-9a-f]+$/);
    expect(res.body).toMatchObject({ id: domain.id, status: 'pending_dns', reference: 'ws_42', metadata: { plan: 'pro' } });
  });

  it('shows an internal certificate without a directory, and null without one; no runs yet is an empty list', async () => {
    const internal = await register(unique('internal'));
    await api.store.run((r) => r.certificates.save({
      hostname: internal.hostname, domainId: internal.id, issuer: 'internal', pemChain: ca.leaf.cert, keySealed: 'sealed',
      notBefore: new Date('2026-01-01T00:00:00.000Z'), notAfter: new Date('2026-01-07T00:00:00.000Z'), createdAt: new Date('2026-01-01T00:00:00.000Z'),
    }));
    expect((await lookup(internal.hostname)).body.certificate).toMatchObject({ issuer: 'internal', directory_url: null, renewal_after: '2026-01-05T00:00:00.000Z' });
    const bare = await register(unique('bare'));
    const res = await lookup(bare.hostname);
    expect(res.body).toMatchObject({ id: bare.id, application: app.slug, certificate: null, recent_runs: [] });
  });

  it('normalizes the hostname as registration does: case, one trailing dot, Unicode', async () => {
    const label = `bücher-${randomBytes(3).toString('hex')}`;
    const domain = await register(`${label}.lookup.example.com`);
    expect(domain.hostname).toMatch(/^xn--/);
    for (const written of [domain.hostname.toUpperCase(), `${domain.hostname}.`, `${label.toUpperCase()}.Lookup.Example.COM.`]) {
      const res = await lookup(written);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: domain.id, hostname: domain.hostname });
    }
  });

  it('refuses a name that is no hostname with the codes of registration', async () => {
    for (const [name, code] of [
      ['*.lookup.example.com', 'wildcard_not_supported'],
      ['127.0.0.1', 'ip_literal_not_supported'],
      ['[::1]', 'ip_literal_not_supported'],
      ['shop_1.lookup.example.com', 'invalid_label'],
      ['shop.lookup.example.com:443', 'invalid_hostname'],
      ['a..example.com', 'invalid_label'],
      [' ', 'empty_hostname'],
      [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(40)}.example.com`, 'hostname_too_long'],
    ] as const) {
      expect(expectError(await lookup(name), 422, code)).toMatchObject({ field: 'hostname' });
    }
  });

  it('answers 404 domain_not_found for a hostname no domain has, and for names registration refuses but that are hostnames', async () => {
    for (const name of [unique('nobody'), 'example.com', 'localhost']) {
      expect(expectError(await lookup(name), 404, 'domain_not_found')).toEqual({ hostname: name });
    }
  });

  it('with include_deleted=true answers the domain deleted last when none is live; a live one always wins', async () => {
    const hostname = unique('again');
    const first = await register(hostname);
    await insertCheckRuns(api.config.databaseUrl, first.id, [aRun(0), aRun(1, { statusAfter: 'attention_required' })]);
    await remove(first.id);

    expectError(await lookup(hostname), 404, 'domain_not_found');
    expectError(await lookup(hostname, '?include_deleted=false'), 404, 'domain_not_found');
    const deleted = await lookup(hostname, '?include_deleted=true');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      ...(await v1Domain(first.id)), application: app.slug, certificate: null, recent_runs: [aRun(1, { statusAfter: 'attention_required' }), aRun(0)].map(shown),
    });
    expect(deleted.body).toMatchObject({ status: 'deleting', dns_records: [], deleted_at: expect.any(String) });

    const second = await register(hostname);
    expect((await lookup(hostname, '?include_deleted=true')).body).toMatchObject({ id: second.id, deleted_at: null, recent_runs: [] });
    expect((await lookup(hostname)).body).toMatchObject({ id: second.id });

    await sleep(5); // a later deleted_at than the first's
    await remove(second.id);
    expect((await lookup(`${hostname.toUpperCase()}.`, '?include_deleted=true')).body).toMatchObject({ id: second.id, status: 'deleting' });
  });

  it('validates include_deleted as every boolean query parameter: true or false', async () => {
    const { hostname } = await register(unique('query'));
    for (const value of ['yes', 'TRUE', '1', '']) expectValidationError(await lookup(hostname, `?include_deleted=${value}`), 'query', 'include_deleted');
    expect((await lookup(hostname, '?unknown=1')).status).toBe(200);
  });

  it('needs the operator token', async () => {
    const { hostname } = await register(unique('token'));
    expectError(await api.request('GET', `/operator/v1/domains/${hostname}`), 401, 'unauthorized');
    expectError(await api.request('GET', `/operator/v1/domains/${hostname}`, { token: app.key }), 401, 'unauthorized');
    expectError(await api.request('GET', '/operator/v1/domains/', { token: api.operatorToken, unchecked: true }), 404, 'not_found');
  });

  it('is the typed client’s domains.lookup', async () => {
    const { hostname } = await register(unique('client'));
    const operator = new CustomDomainOperatorClient({ baseUrl: api.url, operatorToken: api.operatorToken });
    expect(await operator.domains.lookup(`${hostname.toUpperCase()}.`)).toEqual((await lookup(hostname)).body);
    const missing = await operator.domains.lookup(unique('missing'), { includeDeleted: true }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, code: 'domain_not_found' });
  });
});
