// The TypeScript client (clients/typescript) against the built all-in-one
// process (`services/all-in-one/dist/main.js`) over a fresh database of the
// kind TEST_DATABASE names: domains through their lifecycle, a webhook to a
// real HTTPS receiver on loopback, and the delivery verified with verifyWebhook.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError, CustomDomainClient, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '../../../clients/typescript/src';
import { connectTestClient } from '../../support/api-harness';
import { startDnsResponder, type DnsResponder } from '../../support/dns-responder';
import { eventually } from '../../support/eventually';
import { freePort } from '../../support/free-port';
import { stopProcess, waitForBuild } from '../../support/service-process';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createTestCa, startReceiver, type TestCa, type WebhookReceiver } from '../../support/webhook-receiver';

const MAIN = path.join(__dirname, '../../../services/all-in-one/dist/main.js');
const HOOK = '/client-hook';

let db: TestDatabase;
let dns: DnsResponder;
let ca: TestCa;
let receiver: WebhookReceiver;
let child: ChildProcess;
let dir: string;
let output = '';
let client: CustomDomainClient;

beforeAll(async () => {
  await waitForBuild(MAIN);
  db = await createTestDatabase();
  // The checker asks this server (NXDOMAIN for everything): no lookups leave the machine.
  dns = await startDnsResponder({});
  ca = createTestCa();
  receiver = await startReceiver(ca);
  dir = mkdtempSync(path.join(tmpdir(), 'cds-client-aio-'));
  const [api, metrics, http, https] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const token = randomBytes(24).toString('base64url');
  child = spawn('node', [MAIN], {
    cwd: dir,
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME,
      API_PORT: String(api), METRICS_PORT: String(metrics), EDGE_HTTP_PORT: String(http), EDGE_HTTPS_PORT: String(https),
      DATABASE_URL: db.url, LOG_LEVEL: 'error', OPERATOR_TOKEN: token, EDGE_TARGET: 'edge.example.net', DNS_SERVERS: dns.server,
      // Webhook URLs must resolve to public addresses; the loopback receiver is allowed, and its CA trusted.
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8', WEBHOOK_CA_BUNDLE: ca.caFile, WEBHOOK_TIMEOUT: '3s', WEBHOOK_RETRY_SCHEDULE: '100ms',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await eventually('the all-in-one process to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`all-in-one exited: ${output}`);
    return fetch(`http://127.0.0.1:${metrics}/readyz`).then((r) => r.status === 200, () => false);
  }, { timeoutMs: 60_000, intervalMs: 200, explain: () => output });
  // The operator side (application, credential) as the other all-in-one tests do it.
  const operator = await connectTestClient(`http://127.0.0.1:${api}`, token);
  const { key } = await operator.createApplication(undefined, { api_requests_per_minute: 100_000 });
  client = new CustomDomainClient({ baseUrl: `http://127.0.0.1:${api}`, apiKey: key });
});

afterAll(async () => {
  if (child) await stopProcess(child, 10_000);
  await receiver?.close();
  await dns?.close();
  ca?.remove();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function refusal(run: () => unknown): WebhookVerificationReason {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError');
}

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

test('domains: create (idempotent with the same key), list with filters, get, recheck, delete; errors as ApiError', async () => {
  const hostname = `www.client-${process.pid}.com`;
  const domain = await client.domains.create({ hostname, reference: 'ws-client', metadata: { plan: 'pro' } }, { idempotencyKey: `key-${process.pid}` });
  expect(domain).toMatchObject({ hostname, reference: 'ws-client', status: 'pending_dns', metadata: { plan: 'pro' } });
  expect(domain.dns_records.map((r) => r.purpose)).toEqual(['ownership', 'routing']);
  const replayed = await client.domains.create({ hostname, reference: 'ws-client', metadata: { plan: 'pro' } }, { idempotencyKey: `key-${process.pid}` });
  expect(replayed.id).toBe(domain.id);
  expect(domain.redirect_to).toBeNull();
  // redirect_to: another live domain of the application (DECISIONS §12).
  const redirecting = await client.domains.create({ hostname: `shop.client-${process.pid}.com`, reference: 'ws-redirect', redirect_to: hostname });
  expect(redirecting.redirect_to).toBe(hostname);
  expect(await apiError(client.domains.create({ hostname: `old.client-${process.pid}.com`, reference: 'ws-redirect', redirect_to: 'elsewhere.example.org' }))).toMatchObject({
    status: 422, code: 'validation_error', details: { field: 'redirect_to' },
  });

  expect((await client.domains.list({ reference: 'ws-client' })).items.map((d) => d.id)).toEqual([domain.id]);
  expect((await client.domains.list({ reference: 'ws-client', status: 'ready' })).items).toEqual([]);
  expect(await client.domains.list({ limit: 1, offset: 0 })).toMatchObject({ limit: 1, offset: 0 });
  expect((await client.domains.get(domain.id)).id).toBe(domain.id);
  expect((await client.domains.recheck(domain.id)).id).toBe(domain.id);

  const deleted = await client.domains.delete(domain.id);
  expect(deleted).toMatchObject({ id: domain.id, status: 'deleting', dns_records: [] });
  expect((await client.domains.list({ reference: 'ws-client' })).items).toEqual([]);
  expect((await client.domains.list({ reference: 'ws-client', include_deleted: true })).items.map((d) => d.id)).toEqual([domain.id]);
  expect((await client.domains.get(domain.id, { includeDeleted: true })).status).toBe('deleting');
  expect(await apiError(client.domains.get(domain.id))).toMatchObject({ status: 404, code: 'domain_not_found' });
  expect(await apiError(client.domains.recheck(domain.id))).toMatchObject({ status: 409, code: 'invalid_status_transition' });
  expect(await apiError(client.domains.create({ hostname: 'example.com', reference: 'ws-client' }))).toMatchObject({
    status: 422, code: 'apex_not_supported', details: { field: 'hostname' },
  });
});

test('webhooks: a real domain.deleted delivery verifies with verifyWebhook; tampered or late is refused; rotate, replay, attempts, revoke', async () => {
  const webhook = await client.webhooks.create({ url: receiver.url(HOOK), events: ['domain.deleted'] });
  expect(webhook.secret).toMatch(/^whsec_/);
  expect((await client.webhooks.list()).map((w) => w.id)).toContain(webhook.id);
  expect(await client.webhooks.get(webhook.id)).toMatchObject({ id: webhook.id, status: 'active' });

  const domain = await client.domains.create({ hostname: `hooks.client-${process.pid}.com`, reference: 'ws-hooks' });
  await client.domains.delete(domain.id);
  const received = await eventually('the domain.deleted delivery', () => receiver.to(HOOK)[0], { timeoutMs: 30_000, explain: () => output });

  const event = verifyWebhook(received.body, received.headers, webhook.secret);
  expect(event).toMatchObject({ type: 'domain.deleted', data: { domain: { id: domain.id, status: 'deleting' } } });
  expect(received.headers['x-custom-domain-event-id']).toBe(event.id);
  const tampered = received.body.replace('"deleting"', '"ready"');
  expect(tampered).not.toBe(received.body);
  expect(refusal(() => verifyWebhook(tampered, received.headers, webhook.secret))).toBe('no_matching_signature');
  const tenMinutesLater = () => new Date(Date.now() + 10 * 60_000);
  expect(refusal(() => verifyWebhook(received.body, received.headers, webhook.secret, { now: tenMinutesLater }))).toBe('timestamp_out_of_tolerance');
  expect(refusal(() => verifyWebhook(received.body, {}, webhook.secret))).toBe('missing_signature');

  const delivery = await eventually('the delivery to be delivered', async () => {
    const [first] = await client.deliveries.list(webhook.id, { state: 'delivered' });
    return first;
  }, { timeoutMs: 30_000 });
  expect(delivery).toMatchObject({ event_id: event.id, event_type: 'domain.deleted', attempts: 1, last_status_code: 200 });
  const attempts = await client.attempts.list(webhook.id, delivery.id);
  expect(attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);

  // After a rotation both secrets sign: the replayed delivery carries two v1 values, and either secret alone verifies it.
  const rotated = await client.webhooks.rotate(webhook.id);
  expect(rotated.secret).not.toBe(webhook.secret);
  const replay = await client.deliveries.replay(webhook.id, delivery.id);
  expect(replay).toMatchObject({ replay_of: delivery.id, event_id: event.id });
  const again = await eventually('the replayed delivery', () => receiver.to(HOOK)[1], { timeoutMs: 30_000, explain: () => output });
  expect(String(again.headers['x-custom-domain-signature']).match(/v1=/g)).toHaveLength(2);
  expect(verifyWebhook(again.body, again.headers, rotated.secret).id).toBe(event.id);
  expect(verifyWebhook(again.body, again.headers, webhook.secret).id).toBe(event.id);
  expect(verifyWebhook(again.body, again.headers, ['whsec_unrelated', rotated.secret]).id).toBe(event.id);

  const since = await client.deliveries.replaySince(webhook.id, new Date(Date.now() - 60 * 60_000));
  expect(since.replayed).toBeGreaterThanOrEqual(2);
  expect(since.delivery_ids).toHaveLength(since.replayed);

  const revoked = await client.webhooks.revoke(webhook.id);
  expect(revoked).toMatchObject({ id: webhook.id, status: 'revoked' });
  expect(await apiError(client.webhooks.rotate(webhook.id))).toMatchObject({ status: 409, code: 'invalid_status_transition' });
  expect(await apiError(client.attempts.list(webhook.id, '00000000-0000-4000-8000-000000000000'))).toMatchObject({ status: 404, code: 'delivery_not_found' });
});
