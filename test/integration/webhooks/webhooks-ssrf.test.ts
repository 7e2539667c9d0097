// Webhook URLs that must never be contacted: refused at create with their
// reason (schemes, credentials, every private and reserved range in IPv4 and
// IPv6 spellings, names resolving to them, mixed answers, unresolvable names),
// and DNS rebinding (public at create, private at delivery) refused at connect.
// Names are served by pebble-challtestsrv (DNS_SERVERS).
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectError, startTestApi, type TestApi } from '../../support/api-harness';
import { startTestDns, type TestDns } from '../../support/challtestsrv';
import { startReceiver, type WebhookReceiver } from '../../support/webhook-receiver';
import { eventually } from '../../support/eventually';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

let dns: TestDns;

beforeAll(async () => {
  dns = await startTestDns();
});
afterAll(() => dns?.stop());

describe('webhook URLs refused at create', () => {
  let api: TestApi;
  let key: string;

  beforeAll(async () => {
    // No private range allowed here: loopback is refused like any other.
    api = await startTestApi({ DNS_SERVERS: dns.server });
    key = (await api.createApplication(undefined, { api_requests_per_minute: 100_000, webhook_subscriptions: 100 })).key;
    await dns.setAddresses('public.ssrf.test', ['8.8.8.8', '2001:4860:4860::8888']);
    await dns.setAddresses('loop.ssrf.test', ['127.0.0.1']);
    await dns.setAddresses('private.ssrf.test', ['10.0.0.5']);
    await dns.setAddresses('metadata.ssrf.test', ['169.254.169.254']);
    await dns.setAddresses('mixed.ssrf.test', ['8.8.8.8', '10.0.0.1']);
    await dns.setAddresses('mixed6.ssrf.test', ['8.8.8.8', '::1']);
    // (challtestsrv cannot serve an IPv4-mapped AAAA; the literal form is tested below.)
    await dns.setAddresses('nat64.ssrf.test', ['64:ff9b::a9fe:a9fe']);
    await dns.setAddresses('ula.ssrf.test', ['fd00::1']);
  });
  afterAll(() => api?.close());

  const create = (url: string) => api.request('POST', '/v1/webhooks', { token: key, body: { url, events: ['domain.ready'] } });

  const REFUSED: Array<[string, string]> = [
    // schemes
    ['http://public.ssrf.test/hook', 'scheme_not_https'],
    ['ftp://public.ssrf.test/hook', 'scheme_not_https'],
    ['file:///etc/passwd', 'scheme_not_https'],
    ['gopher://public.ssrf.test:70/_x', 'scheme_not_https'],
    ['wss://public.ssrf.test/hook', 'scheme_not_https'],
    ['javascript:alert(1)', 'scheme_not_https'],
    // credentials, malformed
    ['https://user:secret@public.ssrf.test/hook', 'credentials_in_url'],
    ['https://user@public.ssrf.test/hook', 'credentials_in_url'],
    ['https://', 'invalid_url'],
    ['public.ssrf.test/hook', 'invalid_url'],
    // loopback in every IPv4 spelling, IPv6, and by name
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.1/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'],
    ['https://0x7f000001/hook', 'loopback'],
    ['https://0177.0.0.1/hook', 'loopback'],
    ['https://0x7f.0.0.1/hook', 'loopback'],
    ['https://127.000.000.001/hook', 'loopback'],
    ['https://[::1]/hook', 'loopback'],
    ['https://loop.ssrf.test/hook', 'loopback'],
    // unspecified
    ['https://0.0.0.0/hook', 'unspecified'],
    ['https://0/hook', 'unspecified'],
    ['https://[::]/hook', 'unspecified'],
    // private
    ['https://10.0.0.1/hook', 'private'],
    ['https://172.16.5.4/hook', 'private'],
    ['https://192.168.0.1/hook', 'private'],
    ['https://3232235521/hook', 'private'],
    ['https://[fd00::1]/hook', 'private'],
    ['https://private.ssrf.test/hook', 'private'],
    ['https://ula.ssrf.test/hook', 'private'],
    // link-local, CGNAT, multicast, broadcast, reserved
    ['https://169.254.169.254/latest/meta-data/', 'link_local'],
    ['https://[fe80::1]/hook', 'link_local'],
    ['https://metadata.ssrf.test/hook', 'link_local'],
    ['https://100.64.0.1/hook', 'cgnat'],
    ['https://224.0.0.1/hook', 'multicast'],
    ['https://[ff02::1]/hook', 'multicast'],
    ['https://255.255.255.255/hook', 'broadcast'],
    ['https://240.0.0.1/hook', 'reserved'],
    ['https://192.0.2.10/hook', 'reserved'],
    ['https://198.18.0.1/hook', 'reserved'],
    ['https://[2001:db8::1]/hook', 'reserved'],
    ['https://[::7f00:1]/hook', 'reserved'],
    // IPv6 forms that lead to a private IPv4 address
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'link_local'],
    ['https://nat64.ssrf.test/hook', 'link_local'],
    ['https://[64:ff9b::a00:1]/hook', 'private'],
    ['https://[2002:7f00:1::1]/hook', 'loopback'],
    ['https://[2001:0:808:808::80ff:fffe]/hook', 'loopback'],
    // names with a mixed answer, or none
    ['https://mixed.ssrf.test/hook', 'private'],
    ['https://mixed6.ssrf.test/hook', 'loopback'],
    ['https://nowhere.ssrf.test/hook', 'unresolvable'],
  ];

  it(`has at least 30 forms to refuse (${REFUSED.length})`, () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(30);
  });

  it.each(REFUSED)('refuses %s: %s', async (url, reason) => {
    const details = expectError(await create(url), 422, 'invalid_webhook_url');
    expect(details.reason).toBe(reason);
  });

  it('names only the reason: no address a name resolved to, in the details or the message', async () => {
    for (const [url, reason] of [
      ['https://private.ssrf.test/x', 'private'], ['https://mixed.ssrf.test/x', 'private'], ['https://metadata.ssrf.test/x', 'link_local'],
      ['https://nat64.ssrf.test/x', 'link_local'], ['https://ula.ssrf.test/x', 'private'], ['https://[2002:7f00:1::1]/x', 'loopback'],
    ] as const) {
      const res = await create(url);
      expect(expectError(res, 422, 'invalid_webhook_url')).toEqual({ reason });
      const text = JSON.stringify(res.body);
      for (const address of ['10.0.0.5', '10.0.0.1', '169.254.169.254', '64:ff9b::a9fe:a9fe', 'fd00::1', '127.0.0.1']) expect(text).not.toContain(address);
      // Nothing shaped like an IPv4 address at all.
      expect(text).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
    }
  });

  it('accepts a name whose every address is public', async () => {
    const res = await create('https://public.ssrf.test/hook');
    expect(res.status).toBe(201);
    expect(res.body.url).toBe('https://public.ssrf.test/hook');
  });
});

describe('DNS rebinding', () => {
  let stack: WebhookStack;
  let rebound: WebhookReceiver;

  beforeAll(async () => {
    // Only 127.0.0.1 is allowed (the test's receiver); 127.0.0.2 is refused like any loopback address.
    stack = await startWebhookStack(
      { DNS_SERVERS: dns.server, WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '100ms' },
      ['ok.ssrf.test', 'rebind.ssrf.test', '127.0.0.1', '127.0.0.2'],
    );
    rebound = await startReceiver(stack.ca, '127.0.0.2');
  });
  afterAll(async () => {
    await rebound?.close();
    await stack?.close();
  });

  it('refuses at connect a name that was public at create and is private at delivery', async () => {
    const app = await stack.application();
    // A receiver really listens where the name will point, reachable for anyone who does not check.
    const direct = await new Promise<number>((resolve, reject) => {
      https.get(rebound.url('/probe'), { ca: [readFileSync(stack.ca.caFile, 'utf8')] }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(direct).toBe(200);

    await dns.setAddresses('ok.ssrf.test', ['127.0.0.1']);
    await dns.setAddresses('rebind.ssrf.test', ['8.8.8.8']);
    const okUrl = `https://ok.ssrf.test:${stack.receiver.port}/ok`;
    const rebindUrl = `https://rebind.ssrf.test:${rebound.port}/rebind`;
    const ok = await stack.api.request('POST', '/v1/webhooks', { token: app.key, body: { url: okUrl, events: ['domain.ready'] } });
    const rebind = await stack.api.request('POST', '/v1/webhooks', { token: app.key, body: { url: rebindUrl, events: ['domain.ready'] } });
    expect([ok.status, rebind.status]).toEqual([201, 201]);

    // Now the name points at a refused address.
    await dns.setAddresses('rebind.ssrf.test', ['127.0.0.2']);
    await stack.emit(app.id, 'domain.ready');

    await eventually('the allowed name delivered', () => stack.receiver.to('/ok').length === 1);
    const [record] = await eventually('the rebound delivery abandoned', async () => {
      const list = (await stack.api.request('GET', `/v1/webhooks/${rebind.body.id}/deliveries`, { token: app.key })).body as Array<{ id: string; state: string }>;
      return list[0]?.state === 'abandoned' && list;
    });
    // The history names the receiver's host, never the private address it resolved to.
    expect(record).toMatchObject({ attempts: 8, last_status_code: null, last_error: 'refused to connect to rebind.ssrf.test: loopback address' });
    const attempts = await stack.api.request('GET', `/v1/webhooks/${rebind.body.id}/deliveries/${record?.id}/attempts`, { token: app.key });
    expect(attempts.status).toBe(200);
    expect(attempts.body.items).toHaveLength(8);
    for (const item of attempts.body.items as Array<{ error: string }>) expect(item.error).toBe('refused to connect to rebind.ssrf.test: loopback address');
    expect(JSON.stringify(attempts.body)).not.toContain('127.0.0.2');
    await sleep(300); // nothing reaches the rebound name's server, not even late: the quiet is what is checked
    expect(rebound.to('/rebind')).toEqual([]);

    // A mixed answer at delivery is refused as well.
    await dns.setAddresses('rebind.ssrf.test', ['8.8.8.8', '127.0.0.2']);
    const replay = await stack.api.request('POST', `/v1/webhooks/${rebind.body.id}/deliveries/${record?.id}/replay`, { token: app.key });
    expect(replay.status).toBe(202);
    await eventually('the replay abandoned', async () => {
      const list = (await stack.api.request('GET', `/v1/webhooks/${rebind.body.id}/deliveries`, { token: app.key })).body as Array<{ id: string; state: string; last_error: string }>;
      const found = list.find((d) => d.id === replay.body.id);
      return found?.state === 'abandoned' && found.last_error === 'refused to connect to rebind.ssrf.test: loopback address';
    });
    expect(rebound.to('/rebind')).toEqual([]);
  });

  it('names the host, not the address it resolved to, when a connection fails', async () => {
    const app = await stack.application();
    // A port nobody listens on, at an allowed address.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await dns.setAddresses('closed.ssrf.test', ['127.0.0.1']);
    const sub = await stack.api.request('POST', '/v1/webhooks', { token: app.key, body: { url: `https://closed.ssrf.test:${port}/x`, events: ['domain.ready'] } });
    expect(sub.status).toBe(201);
    await stack.emit(app.id, 'domain.ready');

    const [delivery] = await eventually('a failed attempt', async () => {
      const list = (await stack.api.request('GET', `/v1/webhooks/${sub.body.id}/deliveries`, { token: app.key })).body as Array<{ id: string; attempts: number }>;
      return (list[0]?.attempts ?? 0) > 0 && list;
    });
    const attempts = await stack.api.request('GET', `/v1/webhooks/${sub.body.id}/deliveries/${delivery?.id}/attempts`, { token: app.key });
    const [first] = attempts.body.items as Array<{ error: string }>;
    expect(first?.error).toBe(`connect ECONNREFUSED closed.ssrf.test:${port}`);
    expect(JSON.stringify(attempts.body)).not.toContain('127.0.0.1');
  });
});
