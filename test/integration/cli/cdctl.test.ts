// cdctl as a user runs it: the built CLI in a child process, against an
// in-process API (--url/--token) and its database (DATABASE_URL), on
// TEST_DATABASE. Exit codes: 0 ok, 1 failed request or check, 2 usage.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { randomSlug, startTestApi, type TestApi } from '../../support/api-harness';
import { insertCheckRuns } from '../../support/check-run-rows';
import { startDnsResponder, type DnsResponder } from '../../support/dns-responder';
import { runCdctl, type CdctlRun } from '../../support/cdctl-process';
import { waitForBuild } from '../../support/service-process';
import { createTestDatabase } from '../../support/test-database';

const MAIN = join(__dirname, '../../../services/cli/dist/main.js');

type Run = CdctlRun;

let api: TestApi;
let dns: DnsResponder;
let cwd: string;
let origin: http.Server;
let originUrl: string;

/** Runs cdctl in an empty directory with only the environment given (and PATH). */
const cdctl = (args: string[], env: Record<string, string> = {}, dir = cwd): Promise<Run> => runCdctl(args, env, dir);

const auth = () => ['--url', api.url, '--token', api.operatorToken];

/** cdctl … --json that must succeed; its parsed output. */
async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await cdctl([...args, ...auth(), '--json']);
  if (run.code !== 0) throw new Error(`cdctl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

function expectExit(run: Run, code: number): void {
  if (run.code !== code) throw new Error(`expected exit ${code}, got ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

beforeAll(async () => {
  await waitForBuild(MAIN);
  api = await startTestApi();
  dns = await startDnsResponder({ 'edge.example.net': '192.0.2.20' });
  cwd = mkdtempSync(join(tmpdir(), 'cdctl-test-'));
  origin = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await api?.close();
  await dns?.close();
  await new Promise((resolve) => origin?.close(resolve));
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

describe('cdctl app', () => {
  it('create, list, get, suspend, resume and delete', async () => {
    const slug = randomSlug('cli');
    const created = await json<{ slug: string; name: string; limits: { credentials: number; live_domains: number } }>(
      ['app', 'create', slug, '--name', 'Shop builder', '--limit', 'credentials=2', '--limit', 'live_domains=7'],
    );
    expect(created).toMatchObject({ slug, name: 'Shop builder', status: 'active', limits: { credentials: 2, live_domains: 7 } });

    const readable = await cdctl(['app', 'create', `${slug}-b`, '--name', 'Second', ...auth()]);
    expectExit(readable, 0);
    expect(readable.stdout).toMatch(new RegExp(`^slug +${slug}-b$`, 'm'));
    expect(readable.stdout).toMatch(/^limits\.live_domains +25$/m);

    const list = await cdctl(['app', 'list', ...auth()]);
    expectExit(list, 0);
    expect(list.stdout.split('\n')[0]).toMatch(/^slug +name +status +plan +live_domains +created_at$/);
    expect(list.stdout).toMatch(new RegExp(`^${slug} +Shop builder +active +free +0 `, 'm'));
    expect((await json<Array<{ slug: string }>>(['app', 'list'])).map((a) => a.slug)).toEqual(expect.arrayContaining([slug, `${slug}-b`]));

    const got = await cdctl(['app', 'get', slug, ...auth()]);
    expectExit(got, 0);
    expect(got.stdout).toMatch(/^limits\.credentials +2$/m);

    expect(await json(['app', 'suspend', slug])).toMatchObject({ status: 'suspended' });
    expect((await api.operator('GET', `/operator/v1/applications/${slug}`)).body.status).toBe('suspended');
    expect(await json(['app', 'resume', slug])).toMatchObject({ status: 'active' });

    const unconfirmed = await cdctl(['app', 'delete', slug, '--confirm', 'something-else', ...auth()]);
    expectExit(unconfirmed, 1);
    expect(unconfirmed.stderr).toContain('confirmation_required');
    const deleted = await cdctl(['app', 'delete', slug, '--confirm', slug, ...auth()]);
    expectExit(deleted, 0);
    expect(deleted.stdout).toMatch(new RegExp(`^deleted ${slug} at \\S+; 0 domain\\(s\\) deleted$`, 'm'));
    const gone = await cdctl(['app', 'get', slug, ...auth()]);
    expectExit(gone, 1);
    expect(gone.stderr).toMatch(/^cdctl: application_not_found: .+/m);
  });
});

describe('cdctl credential', () => {
  it('issue, list, rotate and revoke; the keys work against /v1 until revoked', async () => {
    const { slug } = await api.createApplication(undefined, { credentials: 3 });
    const issued = await json<{ id: string; secret: string; prefix: string }>(['credential', 'issue', slug, '--name', 'ci']);
    expect(issued.secret).toMatch(/^cd_[0-9A-Za-z]{43}$/);
    expect((await api.request('GET', '/v1/domains', { token: issued.secret })).status).toBe(200);

    const readable = await cdctl(['credential', 'issue', slug, ...auth()]);
    expectExit(readable, 0);
    expect(readable.stdout).toMatch(/^secret +cd_[0-9A-Za-z]{43}$/m);
    expect(readable.stdout).toContain('shown only this once');

    const list = await cdctl(['credential', 'list', slug, ...auth()]);
    expectExit(list, 0);
    expect(list.stdout).toContain(issued.prefix);
    expect(list.stdout).not.toContain(issued.secret);

    const rotated = await json<{ id: string; secret: string }>(['credential', 'rotate', slug, issued.id, '--name', 'ci-2']);
    expect(rotated.secret).toMatch(/^cd_/);
    const after = await json<Array<{ id: string; expires_at: string | null }>>(['credential', 'list', slug]);
    expect(after.find((c) => c.id === issued.id)?.expires_at).not.toBeNull();

    expect(await json(['credential', 'revoke', slug, rotated.id])).toMatchObject({ id: rotated.id, status: 'revoked' });
    expect((await api.request('GET', '/v1/domains', { token: rotated.secret })).status).toBe(401);
    expect((await api.request('GET', '/v1/domains', { token: issued.secret })).status).toBe(200); // still in its overlap
  });
});

describe('cdctl origin and assertion-key', () => {
  it('add, verify, activate, list and retire an origin', async () => {
    const { slug } = await api.createApplication();
    const added = await json<{ id: string; status: string; health_path: string }>(['origin', 'add', slug, originUrl, '--health-path', '/healthz']);
    expect(added).toMatchObject({ status: 'pending_verification', health_path: '/healthz' });
    expect(await json(['origin', 'verify', slug, added.id])).toMatchObject({ id: added.id, status: 'verified' });
    expect(await json(['origin', 'activate', slug, added.id])).toMatchObject({ status: 'active' });
    const list = await cdctl(['origin', 'list', slug, ...auth()]);
    expectExit(list, 0);
    expect(list.stdout).toMatch(new RegExp(`^${added.id} +${originUrl} +/healthz +active `, 'm'));
    expect(await json(['origin', 'retire', slug, added.id])).toMatchObject({ status: 'retired' });
    const unknown = await cdctl(['origin', 'verify', slug, '00000000-0000-4000-8000-000000000000', ...auth()]);
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain('origin_not_found');
  });

  it('issue, list and revoke assertion keys', async () => {
    const { slug } = await api.createApplication();
    const issued = await json<{ kid: string; secret: string }>(['assertion-key', 'issue', slug]);
    expect(issued.kid).toMatch(/^ak_[0-9a-f]{16}$/);
    const list = await cdctl(['assertion-key', 'list', slug, ...auth()]);
    expectExit(list, 0);
    expect(list.stdout).toContain(`signing kid: ${issued.kid}`);
    expect(list.stdout).toMatch(new RegExp(`^${issued.kid} +active `, 'm'));
    expect(await json(['assertion-key', 'revoke', slug, issued.kid])).toMatchObject({ kid: issued.kid, status: 'revoked' });
    expect((await json<{ signing_kid: string }>(['assertion-key', 'list', slug])).signing_kid).toBe(api.config.assertionDeploymentKid);
  });
});

describe('cdctl traffic', () => {
  it('shows one row per day of the window and the totals', async () => {
    const { slug } = await api.createApplication();
    const traffic = await json<{ slug: string; days: Array<{ date: string; requests: number }>; totals: { requests: number } }>(['traffic', slug, '--days', '3']);
    expect(traffic.slug).toBe(slug);
    expect(traffic.days).toHaveLength(3);
    expect(traffic.totals.requests).toBe(0);
    const readable = await cdctl(['traffic', slug, '--days', '2', ...auth()]);
    expectExit(readable, 0);
    expect(readable.stdout).toMatch(/^date +requests +response_bytes$/m);
    expect(readable.stdout).toMatch(/^\d{4}-\d{2}-\d{2} +0 +0$/m);
    expect(readable.stdout).toContain('total: 0 request(s), 0 response byte(s)');
  });
});

describe('cdctl domain show', () => {
  it('prints the domain of a hostname: status, checks, records, certificate and recent runs; --json prints the body', async () => {
    const { slug, key } = await api.createApplication();
    const hostname = `shop-${randomBytes(4).toString('hex')}.cli.example.com`;
    const created = await api.request('POST', '/v1/domains', { token: key, body: { hostname, reference: 'ws_7' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await insertCheckRuns(api.config.databaseUrl, id, [
      { slot: 0, startedAt: new Date('2026-05-01T10:00:00.000Z'), durationMs: 812, trigger: 'created', statusBefore: 'pending_dns', statusAfter: 'pending_dns',
        checks: [['failing', 'txt_record_not_found', 'No TXT record.'], ['failing', 'cname_not_found', 'No CNAME.'], ['pending', null, null], ['passing', null, null]] },
      { slot: 1, startedAt: new Date('2026-05-01T10:01:00.000Z'), durationMs: 95, trigger: 'recheck', statusBefore: 'pending_dns', statusAfter: 'pending_dns',
        checks: [['passing', null, null], ['failing', 'cname_target_mismatch', 'Elsewhere.'], ['pending', null, null], ['passing', null, null]] },
    ]);

    const body = await json<{ id: string; application: string; recent_runs: unknown[] }>(['domain', 'show', `${hostname.toUpperCase()}.`]);
    expect(body).toEqual((await api.operator('GET', `/operator/v1/domains/${hostname}`)).body);
    expect(body).toMatchObject({ id, application: slug, certificate: null });

    const readable = await cdctl(['domain', 'show', hostname, ...auth()]);
    expectExit(readable, 0);
    expect(readable.stdout).toMatch(new RegExp(`^hostname +${hostname.replaceAll('.', '\\.')}$`, 'm'));
    expect(readable.stdout).toMatch(new RegExp(`^application +${slug}$`, 'm'));
    expect(readable.stdout).toMatch(/^status +pending_dns$/m);
    expect(readable.stdout).toMatch(/^redirect_to +-$/m);
    expect(readable.stdout).toMatch(/^checks\ntype +status +error_code +observed_at +next_check_at +message\nownership +pending /m);
    expect(readable.stdout).toMatch(new RegExp(`^CNAME +${hostname.replaceAll('.', '\\.')} +edge\\.example\\.net$`, 'm'));
    expect(readable.stdout).toMatch(/^certificate\n\(none\)$/m);
    expect(readable.stdout).toMatch(/^started_at +duration_ms +trigger +status_before +status_after +ownership +routing +certificate +origin$/m);
    const runs = readable.stdout.slice(readable.stdout.indexOf('recent runs, newest first')).split('\n').slice(2, 4);
    expect(runs[0]).toMatch(/^2026-05-01T10:01:00\.000Z +95 +recheck +pending_dns +pending_dns +passing +failing \(cname_target_mismatch\) +pending +passing$/);
    expect(runs[1]).toMatch(/^2026-05-01T10:00:00\.000Z +812 +created +pending_dns +pending_dns +failing \(txt_record_not_found\) +failing \(cname_not_found\) +pending +passing$/);

    expect((await api.request('DELETE', `/v1/domains/${id}`, { token: key })).status).toBe(202);
    const gone = await cdctl(['domain', 'show', hostname, ...auth()]);
    expectExit(gone, 1);
    expect(gone.stderr).toMatch(/^cdctl: domain_not_found: .+/m);
    expect(await json(['domain', 'show', hostname, '--include-deleted'])).toMatchObject({ id, status: 'deleting' });
    const refused = await cdctl(['domain', 'show', '*.cli.example.com', ...auth()]);
    expectExit(refused, 1);
    expect(refused.stderr).toContain('wildcard_not_supported');
  });
});

describe('cdctl doctor', () => {
  const env = () => ({ DATABASE_URL: api.config.databaseUrl, DNS_SERVERS: dns.server, EDGE_TARGET: 'edge.example.net' });

  it('prints the report as JSON and as a table; exit 0 when not failing', async () => {
    const asJson = await cdctl(['doctor', '--json'], env());
    expectExit(asJson, 0);
    const report = JSON.parse(asJson.stdout) as { status: string; checks: Array<{ name: string; status: string }> };
    expect(['ok', 'degraded']).toContain(report.status);
    expect(report.checks.find((c) => c.name === 'database')?.status).toBe('ok');
    expect(report.checks.find((c) => c.name === 'edge_target')?.status).toBe('ok');

    const table = await cdctl(['doctor'], env());
    expectExit(table, 0);
    expect(table.stdout).toMatch(/^name +status +duration +message$/m);
    expect(table.stdout).toMatch(/^migrations +ok +\d+ ms +the schema is current$/m);
    expect(table.stdout).toMatch(/^status: (ok|degraded)$/m);
  });

  it('exits 1 when a check fails (AMQP_URL on a wrong port)', async () => {
    const run = await cdctl(['doctor', '--json'], { ...env(), AMQP_URL: 'amqp://guest:guest@127.0.0.1:1', CERT_ISSUER: 'internal' });
    expectExit(run, 1);
    const report = JSON.parse(run.stdout) as { status: string; checks: Array<{ name: string; status: string }> };
    expect(report.status).toBe('failing');
    expect(report.checks.find((c) => c.name === 'broker')?.status).toBe('fail');
    const table = await cdctl(['doctor'], { ...env(), AMQP_URL: 'amqp://guest:guest@127.0.0.1:1', CERT_ISSUER: 'internal' });
    expectExit(table, 1);
    expect(table.stdout).toMatch(/^broker +fail /m);
    expect(table.stdout).toMatch(/^status: failing$/m);
  });
});

describe('cdctl migrate', () => {
  it('applies the migrations of an empty database, then finds the schema current', async () => {
    const db = await createTestDatabase();
    try {
      const first = await cdctl(['migrate'], { DATABASE_URL: db.url });
      expectExit(first, 0);
      expect(first.stdout).toMatch(/^applied: InitialSchema\d+/m);
      const second = await cdctl(['migrate'], { DATABASE_URL: db.url });
      expectExit(second, 0);
      expect(second.stdout.trim()).toBe('the database schema is current');
    } finally {
      await db.drop();
    }
  });
});

describe('cdctl operator reset-token', () => {
  it('makes the configured OPERATOR_TOKEN valid again after PUT /operator/v1/token', async () => {
    const replacement = randomBytes(32).toString('base64url');
    expect((await api.operator('PUT', '/operator/v1/token', { token: replacement })).status).toBe(204);
    expect((await api.operator('GET', '/operator/v1/applications')).status).toBe(401);
    expectExit(await cdctl(['app', 'list', '--url', api.url, '--token', replacement]), 0);

    const reset = await cdctl(['operator', 'reset-token'], { DATABASE_URL: api.config.databaseUrl });
    expectExit(reset, 0);
    expect(reset.stdout).toContain('the configured OPERATOR_TOKEN is valid again');
    expect((await api.operator('GET', '/operator/v1/applications')).status).toBe(200);
    expect((await cdctl(['app', 'list', '--url', api.url, '--token', replacement])).code).toBe(1);

    const again = await cdctl(['operator', 'reset-token'], { DATABASE_URL: api.config.databaseUrl });
    expectExit(again, 0);
    expect(again.stdout).toContain('no token was set through the API');
  });
});

describe('cdctl settings, usage and failures', () => {
  it('takes the URL and token from CDCTL_URL and OPERATOR_TOKEN, or the token from ./data/operator-token', async () => {
    expectExit(await cdctl(['app', 'list'], { CDCTL_URL: api.url, OPERATOR_TOKEN: api.operatorToken }), 0);
    const dir = mkdtempSync(join(tmpdir(), 'cdctl-token-'));
    try {
      mkdirSync(join(dir, 'data'));
      writeFileSync(join(dir, 'data', 'operator-token'), `${api.operatorToken}\n`);
      expectExit(await cdctl(['app', 'list', '--json'], { CDCTL_URL: api.url }, dir), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 on usage errors', async () => {
    for (const args of [
      ['app', 'get'],
      ['app', 'create', 'x'],
      ['app', 'delete', 'x'],
      ['nonsense'],
      ['traffic', 'x', '--days', 'many'],
      ['domain', 'show'],
      ['certificate', 'renew'],
      ['certificate', 'renew', 'shop.example.com', '--all'],
      ['certificate', 'renew', '--issuer', 'acme'],
      ['app', 'create', 'x', '--name', 'X', '--limit', 'oops'],
      ['doctor', '--mode', 'sideways'],
      [],
    ]) {
      const run = await cdctl([...args, '--url', api.url, '--token', 't']);
      if (run.code !== 2) throw new Error(`cdctl ${args.join(' ')}: expected exit 2, got ${run.code}: ${run.stderr}`);
      expect(run.stderr).not.toBe('');
    }
    const noToken = await cdctl(['app', 'list', '--url', api.url]);
    expectExit(noToken, 2);
    expect(noToken.stderr).toContain('no operator token');
    const badUrl = await cdctl(['app', 'list', '--token', 't'], { CDCTL_URL: 'ftp://example.net' });
    expectExit(badUrl, 2);
    expect(badUrl.stderr).toContain('CDCTL_URL');
  });

  it('exits 1 on a failed request, printing its code and message', async () => {
    const missing = await cdctl(['app', 'get', 'no-such-app', ...auth()]);
    expectExit(missing, 1);
    expect(missing.stderr).toMatch(/^cdctl: application_not_found: \S.*$/m);
    const wrongToken = await cdctl(['app', 'list', '--url', api.url, '--token', 'wrong-token']);
    expectExit(wrongToken, 1);
    expect(wrongToken.stderr).toMatch(/^cdctl: unauthorized: /m);
    const unreachable = await cdctl(['app', 'list', '--url', 'http://127.0.0.1:1', '--token', 't']);
    expectExit(unreachable, 1);
    expect(unreachable.stderr).toContain('cannot reach http://127.0.0.1:1');
  });

  it('has --help on every command (exit 0)', async () => {
    for (const path of [
      [], ['migrate'], ['doctor'], ['rekey'], ['operator'], ['operator', 'reset-token'], ['app'], ['app', 'create'], ['app', 'delete'],
      ['credential'], ['credential', 'rotate'], ['origin'], ['origin', 'add'], ['assertion-key'], ['assertion-key', 'revoke'], ['traffic'],
      ['domain'], ['domain', 'show'], ['certificate'], ['certificate', 'renew'],
    ]) {
      const run = await cdctl([...path, '--help']);
      expectExit(run, 0);
      expect(run.stdout).toContain(`Usage: cdctl ${path.join(' ')}`.trimEnd());
    }
  });
});
