// The receiver example of docs/webhooks.md, taken from the page as written,
// is type-checked as a receiver's project would compile it (strict, Node's
// types, express's own types) and then serves the webhook URL of a real
// subscription: it must accept the service's deliveries (before and after a
// rotation) and refuse forgeries.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import ts from 'typescript';
import { sampleDomainResource } from '../../support/domain-resource';
import { eventually } from '../../support/eventually';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

const ROOT = join(__dirname, '../../..');
const DOC = join(ROOT, 'docs/webhooks.md');
/** Where the example is compiled as if it were a file: module resolution starts here (the repository's node_modules). */
const EXAMPLE_FILE = join(ROOT, 'docs/webhooks-example.ts');

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

/** The page's one TypeScript code block. */
function exampleSource(): string {
  const blocks = [...readFileSync(DOC, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  expect(blocks).toHaveLength(1);
  return blocks[0] as string;
}

/**
 * Type-checks `source` as one module of a project with this repository's
 * compiler options (tsconfig.base.json: strict, noUncheckedIndexedAccess, …;
 * noImplicitAny and strict stated again so that no later change of that file
 * loosens this check) and Node's types. Imports resolve from the
 * repository's node_modules, so `express` is checked against @types/express.
 * Returns every diagnostic, formatted.
 */
function typeCheck(source: string): string[] {
  const { config, error } = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    strict: true,
    noImplicitAny: true,
    types: ['node'],
    noEmit: true,
    composite: false,
    declaration: false,
    declarationMap: false,
    sourceMap: false,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === EXAMPLE_FILE ? ts.createSourceFile(fileName, source, languageVersion, true) : getSourceFile(fileName, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === EXAMPLE_FILE || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => (fileName === EXAMPLE_FILE ? source : readFile(fileName));
  const program = ts.createProgram({ rootNames: [EXAMPLE_FILE], options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return `TS${d.code}: ${text}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1}:${character + 1} TS${d.code}: ${text}`;
  });
}

/** The page's one TypeScript code block, type-checked, compiled and loaded as a module. */
function loadExample(): Example {
  const source = exampleSource();
  expect(typeCheck(source)).toEqual([]);
  const output = ts.transpileModule(source, {
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

  const domain = sampleDomainResource({ hostname: 'shop.customer.com' });
  const first = await stack.emit(appId, 'domain.ready', domain);
  await eventually('the example to accept the first event', () => events.length === 1);
  expect(events[0]).toMatchObject({ id: first, type: 'domain.ready', data: { domain: { id: domain.id, hostname: 'shop.customer.com' } } });
  await eventually('delivered (204 from the example)', async () => (await stack.deliveries(key, sub.body.id))[0]?.last_status_code === 204);

  // After a rotation the receiver still holding only the old secret keeps accepting.
  const rotated = await stack.api.request('POST', `/v1/webhooks/${sub.body.id}/rotate`, { token: key });
  const second = await stack.emit(appId, 'domain.recovered');
  await eventually('the example to accept the second event', () => events.length === 2);
  expect(events[1]?.id).toBe(second);
  // And one holding only the new secret too.
  secrets.splice(0, secrets.length, rotated.body.secret);
  const third = await stack.emit(appId, 'domain.ready');
  await eventually('the example to accept the third event', () => events.length === 3);
  expect(events[2]?.id).toBe(third);
  expect(refused).toEqual([]);

  // A delivery signed with a secret the receiver does not hold is refused with 400 and retried by the service.
  secrets.splice(0, secrets.length, 'whsec_not-the-one');
  await stack.emit(appId, 'domain.ready');
  await eventually('the example to refuse a delivery', () => refused.length >= 1);
  expect(events).toHaveLength(3);
  // The service records the answer after the example sent it.
  const refusedDelivery = await eventually('the refusal recorded', async () => {
    const [latest] = await stack.deliveries(key, sub.body.id);
    return latest?.last_status_code === 400 && latest;
  });
  expect(refusedDelivery).toMatchObject({ state: 'pending', last_status_code: 400 });
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

it('type-checks the example strictly: the check finds type errors a receiver\'s compiler would report', () => {
  const source = exampleSource();
  // Each added line is wrong only under the options or with the types the example is held to.
  const codes = (extra: string) => typeCheck(`${source}\n${extra}\n`).map((d) => d.replace(/^.*? (TS\d+):.*$/s, '$1'));
  // noImplicitAny: a parameter without a type.
  expect(codes('export const echo = (value) => value;')).toEqual(['TS7006']);
  // strictNullChecks, with Node's types: an environment variable may be undefined.
  expect(codes('export const home: string = process.env.HOME;')).toEqual(['TS2322']);
  // noUncheckedIndexedAccess: an element of an array may be missing.
  expect(codes('export const first = (parts: string[]): string => parts[0];')).toEqual(['TS2322']);
  // express's types: a router has no `send`.
  expect(codes('export const wrong = (r: express.Router) => r.send;')).toEqual(['TS2339']);
});
