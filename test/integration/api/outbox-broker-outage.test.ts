// Acceptance: with the broker unreachable, creates still succeed; once it is
// back, every domain.check.requested arrives as many times as domains were created.
// The outage is real: the test's vhost loses its permissions and its connections
// are closed, so the relay cannot reach RabbitMQ at all until they are restored.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ROUTING_KEYS } from '@cds/core';
import { outboxSource } from '@cds/data';
import { connectAmqpBus, startOutboxRelay, type AmqpBus } from '@cds/messaging';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { createVhost, deleteVhost, messageCount, uniqueName, type TestVhost } from '../messaging/rabbit';

const run = promisify(execFile);
const rabbitmqctl = (...args: string[]) => run('rabbitmqctl', args, { timeout: 30_000 });

describe('outbox across a broker outage', () => {
  let api: TestApi;
  let vhost: TestVhost;
  let bus: AmqpBus;
  let relay: ReturnType<typeof startOutboxRelay>;
  const received = new Map<string, number>(); // domain_id -> deliveries
  const probeQueue = uniqueName('checker-probe');

  beforeAll(async () => {
    api = await startTestApi();
    vhost = await createVhost();
    bus = await connectAmqpBus({ url: vhost.url, reconnectDelayMs: { initial: 100, max: 500 }, publishTimeoutMs: 2000 });
    await bus.subscribe({
      queue: probeQueue,
      routingKeys: [ROUTING_KEYS.domainCheckRequested],
      handler: async (m) => {
        if (m.routingKey !== ROUTING_KEYS.domainCheckRequested) return;
        received.set(m.payload.domain_id, (received.get(m.payload.domain_id) ?? 0) + 1);
      },
    });
    relay = startOutboxRelay({ source: outboxSource(api.store), bus, intervalMs: 100 });
  });

  afterAll(async () => {
    await relay?.stop();
    await bus?.close();
    await api?.close();
    await rabbitmqctl('set_permissions', '-p', vhost.name, 'guest', '.*', '.*', '.*').catch(() => undefined);
    await deleteVhost(vhost);
  });

  it('keeps every create while RabbitMQ is away and delivers each check request once it is back', async () => {
    const { key } = await api.createApplication(undefined, { live_domains: 100 });
    const create = async (i: number) => {
      const res = await api.request('POST', '/v1/domains', { token: key, body: { hostname: `shop${i}.outage-test.example.com`, reference: `ws_${i}` } });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };

    const before = [await create(0), await create(1), await create(2)];
    await eventually('the first check requests', () => before.every((id) => received.get(id) === 1), { timeoutMs: 60_000 });

    // Take the broker away for this vhost: no permissions, every connection closed.
    await rabbitmqctl('clear_permissions', '-p', vhost.name, 'guest');
    await rabbitmqctl('close_all_connections', '-p', vhost.name, 'outage test');
    await eventually('the bus to notice', () => !bus.healthy(), { timeoutMs: 15_000 });

    const during: string[] = [];
    for (let i = 10; i < 30; i += 1) during.push(await create(i));
    const pending = await api.store.run((r) => r.outbox.unpublished(1000));
    expect(pending.filter((row) => row.routingKey === ROUTING_KEYS.domainCheckRequested)).toHaveLength(20);
    for (const id of during) expect(received.has(id)).toBe(false);

    await rabbitmqctl('set_permissions', '-p', vhost.name, 'guest', '.*', '.*', '.*');
    const all = [...before, ...during];
    await eventually('every check request after recovery', () => all.every((id) => received.has(id)), { timeoutMs: 60_000 });
    // A duplicate would be a row published again or a message still queued: once every row is marked published and the queue is empty, all have arrived.
    await eventually('every row marked published and the queue drained', async () => (await api.store.run((r) => r.outbox.unpublished(1000))).length === 0
      && (await messageCount(vhost, probeQueue)) === 0);

    expect(received.size).toBe(all.length);
    for (const id of all) expect(received.get(id)).toBe(1);
  });
});
