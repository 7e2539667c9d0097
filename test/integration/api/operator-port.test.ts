// OPERATOR_PORT (DECISIONS §4): set, /operator/v1 is served only on that port
// and every /operator/v1 path on API_PORT answers 404 not_found. The operator
// operations are enumerated from the API's own OpenAPI document, so a route
// added later is covered without touching this test.
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { createOperatorApp } from '@cds/api';
import { closeServer, listen } from '@cds/lifecycle';
import { createLogger } from '@cds/logging';
import { expectError, randomSlug, startTestApi, type Answer, type TestApi } from '../../support/api-harness';
import { freePort } from '../../support/free-port';

interface Operation {
  method: string;
  /** The path with its parameters filled in. */
  path: string;
  body?: unknown;
}

let api: TestApi;
let operatorServer: http.Server;
let operatorUrl: string;
let slug: string;
let operations: Operation[];

/** Every operation under /operator/v1 of the document, its path parameters filled (the slug of a real application, unknown ids). */
function operatorOperations(document: Record<string, unknown>, appSlug: string): Operation[] {
  const found: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths as Record<string, Record<string, { requestBody?: unknown }>>)) {
    if (!template.startsWith('/operator/v1')) continue;
    const path = template.replace(/\{([a-z_]+)\}/g, (_m, name: string) => (name === 'slug' ? appSlug : randomUUID()));
    for (const [method, op] of Object.entries(methods)) found.push({ method: method.toUpperCase(), path, ...(op.requestBody ? { body: {} } : {}) });
  }
  return found;
}

/** A request to `base` (JSON answers parsed); answers of described operations are checked against the API's document. */
async function send(base: string, op: Operation, token?: string): Promise<Answer> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (op.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${op.path}`, { method: op.method, headers, body: op.body === undefined ? undefined : JSON.stringify(op.body) });
  const contentType = res.headers.get('content-type');
  const text = contentType?.startsWith('application/json') ? await res.text() : '';
  if (!contentType?.startsWith('application/json')) await res.arrayBuffer(); // a backup stream: drained, not kept
  const body = text ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, body, text };
}

beforeAll(async () => {
  const port = await freePort();
  // Backups on, so GET /operator/v1/backup is served rather than off (404).
  api = await startTestApi({ OPERATOR_PORT: String(port), OPERATOR_BACKUP: 'true', OPERATOR_AUTH_FAILURES_PER_MINUTE: '1000' });
  expect(api.config.operatorPort).toBe(port);
  const logger = createLogger({ service: 'api-test', level: 'error' });
  operatorServer = await listen(createOperatorApp({ config: api.config, logger, store: api.store }), port, '127.0.0.1');
  operatorUrl = `http://127.0.0.1:${port}`;

  slug = randomSlug('port');
  const created = await send(operatorUrl, { method: 'POST', path: '/operator/v1/applications', body: { slug, name: 'On the operator port' } }, api.operatorToken);
  expect(created.status).toBe(201);
  operations = operatorOperations(api.contract.document, slug);
});

afterAll(async () => {
  if (operatorServer) await closeServer(operatorServer);
  await api?.close();
});

it('enumerates the operator operations from the OpenAPI document', () => {
  // The 23 operator operations of the interface specification, at least.
  expect(operations.length).toBeGreaterThanOrEqual(23);
  expect(operations.map((o) => `${o.method} ${o.path.replace(slug, '{slug}').replace(/[0-9a-f-]{36}/g, '{id}')}`)).toEqual(
    expect.arrayContaining([
      'GET /operator/v1/applications', 'POST /operator/v1/applications', 'DELETE /operator/v1/applications/{slug}',
      'POST /operator/v1/applications/{slug}/origins/{id}/activate', 'POST /operator/v1/applications/{slug}/assertion-keys/{id}/revoke',
      'POST /operator/v1/applications/{slug}/credentials/{id}/rotate', 'PUT /operator/v1/token', 'GET /operator/v1/backup', 'GET /operator/v1/doctor',
    ]),
  );
});

it('answers 404 not_found on API_PORT to every operator path, with or without the token', async () => {
  const unknown: Operation[] = [
    { method: 'GET', path: '/operator/v1' },
    { method: 'GET', path: '/operator/v1/' },
    { method: 'GET', path: '/operator/v1/no-such-thing' },
    { method: 'GET', path: '/OPERATOR/V1/applications' },
  ];
  for (const op of [...operations, ...unknown]) {
    for (const token of [api.operatorToken, undefined, 'wrong-token']) {
      const res = await send(api.url, op, token);
      try {
        expectError(res, 404, 'not_found');
      } catch (error) {
        throw new Error(`${op.method} ${op.path} on API_PORT: ${(error as Error).message}`);
      }
    }
  }
  // Nothing was done: the application is unchanged and the token is the configured one.
  expect(await api.store.run((r) => r.applications.findLiveBySlug(slug))).not.toBeNull();
  // The rest of API_PORT is served as before.
  expectError(await api.request('GET', '/v1/domains'), 401, 'unauthorized');
  expect((await api.request('GET', '/v1/openapi.json')).status).toBe(200);
});

it('serves every operator operation on OPERATOR_PORT', async () => {
  // Access control first, as on API_PORT without OPERATOR_PORT.
  expectError(await send(operatorUrl, { method: 'GET', path: '/operator/v1/applications' }), 401, 'unauthorized');

  for (const op of operations) {
    const res = await send(operatorUrl, op, api.operatorToken);
    const where = `${op.method} ${op.path} on OPERATOR_PORT answered ${res.status} ${res.text.slice(0, 300)}`;
    // Reached its handler: never the unknown-path answer, never a server error.
    const code = typeof res.body === 'object' && res.body !== null ? (res.body as { error?: { code?: string } }).error?.code : undefined;
    expect({ where, code }).not.toEqual({ where, code: 'not_found' });
    expect({ where, status: res.status < 500 }).toEqual({ where, status: true });
    if (res.headers.get('content-type')?.startsWith('application/json')) api.contract.check(op.method, op.path, res.status, res.body, res.headers.get('content-type'));
  }
  // A read that succeeds there: the application created above.
  const got = await send(operatorUrl, { method: 'GET', path: `/operator/v1/applications/${slug}` }, api.operatorToken);
  expect(got.status).toBe(200);
  expect((got.body as { slug: string }).slug).toBe(slug);
});

it('serves nothing but the operator API on OPERATOR_PORT', async () => {
  expectError(await send(operatorUrl, { method: 'GET', path: '/v1/domains' }), 404, 'not_found');
  expectError(await send(operatorUrl, { method: 'GET', path: '/v1/openapi.json' }), 404, 'not_found');
  expectError(await send(operatorUrl, { method: 'GET', path: '/domains' }), 404, 'not_found');
  expectError(await send(operatorUrl, { method: 'GET', path: '/operator/v1/no-such-thing' }, api.operatorToken), 404, 'not_found');
});
