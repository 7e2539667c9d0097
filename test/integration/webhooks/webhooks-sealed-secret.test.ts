// A signing secret is sealed bound to its row: copied into another
// subscription's row it does not open there. The dispatcher sends nothing for
// that subscription, records why on its delivery, and goes on delivering for
// every other subscription.
import { execSql } from '../../support/raw-sql';
import { eventually } from '../../support/eventually';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

let stack: WebhookStack;

beforeAll(async () => {
  stack = await startWebhookStack({ WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '3s' });
});
afterAll(() => stack?.close());

test("a signing secret copied into another subscription's row does not open there: nothing is sent for it, the others are delivered", async () => {
  const app = await stack.application();
  const [source, target] = [await stack.subscribe(app.key, '/source'), await stack.subscribe(app.key, '/target')];
  const secretOf = async (id: string) => (await stack.api.store.run((r) => r.webhookSubscriptions.signingSecrets([id], new Date())))[0];
  const [sourceSecret, targetSecret] = [await secretOf(source.id), await secretOf(target.id)];
  await execSql(stack.api.config.databaseUrl, [`UPDATE webhook_secrets SET secret_sealed = '${sourceSecret?.secretSealed}' WHERE id = '${targetSecret?.id}'`]);

  for (let i = 0; i < 2; i++) await stack.emit(app.id, 'domain.ready');
  await eventually('both events at the source subscription', () => stack.receiver.to('/source').length >= 2, { timeoutMs: 20_000 });
  const failed = await eventually('an attempt recorded for the target subscription', async () => {
    const res = await stack.api.request('GET', `/v1/webhooks/${target.id}/deliveries?limit=10`, { token: app.key });
    const attempted = (res.body as Array<{ attempts: number; last_error: string | null; state: string }>).filter((d) => d.attempts > 0);
    return attempted.length === 2 && attempted;
  }, { timeoutMs: 20_000 });
  for (const delivery of failed) {
    expect(delivery.state).not.toBe('delivered');
    expect(delivery.last_error).toBe(`The sealed webhook-secret ${targetSecret?.id} does not open: altered, copied from another row, or sealed with another key.`);
  }
  expect(stack.receiver.to('/target')).toEqual([]);

  // The dispatcher is still delivering.
  await stack.emit(app.id, 'domain.ready');
  await eventually('a third event at the source subscription', () => stack.receiver.to('/source').length >= 3, { timeoutMs: 20_000 });
  expect(stack.receiver.to('/target')).toEqual([]);
});
