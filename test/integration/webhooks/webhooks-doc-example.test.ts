// The receiver example of docs/webhooks.md, taken from the page as written,
// serves the webhook URL of a real subscription: it must accept the
// service's deliveries (before and after a rotation) and refuse forgeries.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import ts from 'typescript';
import { startWebhookStack, until, type WebhookStack } from './webhook-stack';

jest.setTimeout(60_000);

const DOC = join(__dirname, '../../../docs/webhooks.md');

interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  data: { domain: Record<string, unknown> };
}

interface Example {
  verifyWebhook(rawBody: Buffer, header: string, secrets: string[], nowSeconds?: number): WebhookEvent;
  webhookRouter(secrets: () => string[], onEvent: (event: WebhookEvent) => Promise<void>): express.Router;
}

/** The page's one TypeScript code block, compiled and loaded as a module. */
function loadExample(): Example {
  const blocks = [...readFileSync(DOC, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  expect(blocks).toHaveLength(1);
  const output = ts.transpileModule(blocks[0] as string, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    reportDiagnostics: true,
  });
  expect(output.diagnostics ?? []).toEqual([]);
  // Compiled in the test's own realm with its require, so the example and this
  // test share one express (and one Promise) as a receiver application would.
  const module = { exports: {} as Example };
  const load = new Function('exports', 'require', 'module', output.outputText) as (exports: unknown, req: NodeJS.Require, mod: { exports: unknown }) => void;
  load(module.exports, require, module);
  return module.exports;
}

let stack: WebhookStack;
let server: https.Server;
let example: Example;
const secrets: string[] = [];
const events: WebhookEvent[] = [];
const refused: number[] = [];

beforeAll(async () => {
  example = loadExample();
  stack = await startWebhookStack();
  const app = express();
  app.use((_req, res, next) => {
    res.on('finish', () => res.statusCode === 400 && refused.push(400));
    next();
  });
  app.use(example.webhookRouter(() => secrets, async (event) => void events.push(event)));
  server = https.createServer({ key: stack.ca.key, cert: stack.ca.cert }, app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
});

it('accepts real deliveries, before and after a rotation, and refuses forged ones', async () => {
  const { key, id: appId } = await stack.application();
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/custom-domains`;
  const sub = await stack.api.request('POST', '/v1/webhooks', { token: key, body: { url, events: ['domain.ready', 'domain.recovered'] } });
  expect(sub.status).toBe(201);
  secrets.push(sub.body.secret);

  const first = await stack.emit(appId, 'domain.ready', { id: 'd-1', hostname: 'shop.customer.com' });
  await until('the example to accept the first event', () => events.length === 1);
  expect(events[0]).toMatchObject({ id: first, type: 'domain.ready', data: { domain: { id: 'd-1', hostname: 'shop.customer.com' } } });
  const deliveries = async () => (await stack.api.request('GET', `/v1/webhooks/${sub.body.id}/deliveries`, { token: key })).body as Array<{ state: string; last_status_code: number }>;
  await until('delivered (204 from the example)', async () => (await deliveries())[0]?.last_status_code === 204);

  // After a rotation the receiver still holding only the old secret keeps accepting.
  const rotated = await stack.api.request('POST', `/v1/webhooks/${sub.body.id}/rotate`, { token: key });
  const second = await stack.emit(appId, 'domain.recovered');
  await until('the example to accept the second event', () => events.length === 2);
  expect(events[1]?.id).toBe(second);
  // And one holding only the new secret too.
  secrets.splice(0, secrets.length, rotated.body.secret);
  const third = await stack.emit(appId, 'domain.ready');
  await until('the example to accept the third event', () => events.length === 3);
  expect(events[2]?.id).toBe(third);
  expect(refused).toEqual([]);

  // A delivery signed with a secret the receiver does not hold is refused with 400 and retried by the service.
  secrets.splice(0, secrets.length, 'whsec_not-the-one');
  await stack.emit(appId, 'domain.ready');
  await until('the example to refuse a delivery', () => refused.length >= 1);
  expect(events).toHaveLength(3);
  expect((await deliveries())[0]).toMatchObject({ state: 'pending', last_status_code: 400 });
});

it('checks the timestamp and every v1 as the page says', () => {
  const body = Buffer.from('{"id":"e1","type":"domain.ready","created_at":"2026-01-02T03:04:05.678+00:00","data":{"domain":{}}}');
  const t = 1_800_000_000;
  const sign = (secret: string, at = t) => createHmac('sha256', secret).update(`${at}.${body.toString()}`).digest('hex');
  const header = `t=${t},v1=${sign('whsec_new')},v1=${sign('whsec_old')}`;
  expect(example.verifyWebhook(body, header, ['whsec_old'], t).id).toBe('e1');
  expect(example.verifyWebhook(body, header, ['whsec_new'], t + 299).id).toBe('e1');
  expect(() => example.verifyWebhook(body, header, ['whsec_new'], t + 301)).toThrow(/tolerance/);
  expect(() => example.verifyWebhook(body, header, ['whsec_other'], t)).toThrow(/no valid signature/);
  expect(() => example.verifyWebhook(Buffer.from(body.toString().replace('e1', 'e2')), header, ['whsec_new'], t)).toThrow(/no valid signature/);
  expect(() => example.verifyWebhook(body, `v1=${sign('whsec_new')}`, ['whsec_new'], t)).toThrow(/timestamp/);
  expect(() => example.verifyWebhook(body, `t=${t},v1=zz`, ['whsec_new'], t)).toThrow(/no valid signature/);
});
