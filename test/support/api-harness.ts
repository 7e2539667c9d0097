import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, type Config } from '@cds/config';
import { createDataStore, type DataStore } from '@cds/data';
import { boundPort, closeServer, listen } from '@cds/lifecycle';
import { createLogger } from '@cds/logging';
import { createApp } from '@cds/api';
import { createTestDatabase } from './test-database';
import { OpenApiContract } from './openapi-contract';

export interface Answer<T = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding), for malformed-input tests. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Skip the OpenAPI check (for answers the document cannot describe, like unknown paths). */
  unchecked?: boolean;
}

/** A client of one running API (in-process or another process) that checks every answer against its /v1/openapi.json. */
export interface TestClient {
  url: string;
  operatorToken: string;
  contract: OpenApiContract;
  /** Any request; JSON answers are parsed and checked against /v1/openapi.json. */
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<Answer<T>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Operator API request with the operator token. */
  operator<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Creates an application (limits optional) and issues one credential; returns its key. */
  createApplication(slug?: string, limits?: Record<string, number>): Promise<{ slug: string; key: string }>;
}

export interface TestApi extends TestClient {
  config: Config;
  store: DataStore;
  close(): Promise<void>;
}

export function randomSlug(prefix = 'app'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/**
 * Rate counters use fixed windows aligned to the epoch. When fewer than
 * `minSeconds` remain in the current window, sleeps into the next one, so a
 * short burst of requests that a test counts falls into a single window.
 * Only for services in other processes, which keep real time; in-process
 * code takes a TestClock and starts a window at once.
 */
export async function roomInWindow(minSeconds: number, windowSeconds = 60): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < minSeconds * 1000) await sleep(left + 100);
}

/** Connects to an API already listening at `url` (fetches its OpenAPI document once). */
export async function connectTestClient(url: string, operatorToken: string): Promise<TestClient> {
  const contract = new OpenApiContract((await (await fetch(`${url}/v1/openapi.json`)).json()) as Record<string, unknown>);

  const request: TestClient['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | Buffer | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${url}${path}`, { method, headers, body });
    const text = await res.text();
    const contentType = res.headers.get('content-type');
    const parsed = contentType?.startsWith('application/json') && text ? JSON.parse(text) : text;
    if (!opts.unchecked) contract.check(method, path, res.status, parsed, contentType);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const client: TestClient = {
    url, operatorToken, contract, request,
    operator: (method, path, body) => request(method, path, { token: operatorToken, body }),
    async createApplication(slug = randomSlug(), limits) {
      const created = await client.operator('POST', '/operator/v1/applications', { slug, name: `Test ${slug}`, ...(limits ? { limits } : {}) });
      if (created.status !== 201) throw new Error(`create application: ${created.status} ${created.text}`);
      const issued = await client.operator('POST', `/operator/v1/applications/${slug}/credentials`, {});
      if (issued.status !== 201) throw new Error(`issue credential: ${issued.status} ${issued.text}`);
      return { slug, key: issued.body.secret as string };
    },
  };
  return client;
}

export interface TestApiOptions {
  /** The database of another test API or process, instead of a fresh one. */
  url?: string;
  /** The API's clock (a TestClock's `now`, to start rate windows at will). */
  now?: () => Date;
}

/** Confirmation settings short enough for tests; a test of the confirmation itself sets its own. */
export const SHORT_CONFIRMATION = { CHECK_SCHEDULE_CONFIRM: '200ms', CHECK_OUTAGE_GRACE: '1s', CHECK_SCHEDULE_ATTENTION: '200ms' } as const;

/**
 * Starts the API in-process on port 0 against a fresh database of the kind
 * TEST_DATABASE names (postgres or sqlite). `env` overrides configuration.
 */
export async function startTestApi(env: Record<string, string> = {}, opts: TestApiOptions = {}): Promise<TestApi> {
  const db = opts.url ? null : await createTestDatabase();
  const databaseUrl = opts.url ?? (db as { url: string }).url;
  const operatorToken = randomBytes(24).toString('base64url');
  const config = loadConfig({
    mode: 'all-in-one',
    env: {
      DATABASE_URL: databaseUrl,
      OPERATOR_TOKEN: operatorToken,
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'error',
      EDGE_TARGET: 'edge.example.net',
      // A ready domain's failure is confirmed within a second or two (DECISIONS §11), not minutes.
      ...SHORT_CONFIRMATION,
      ...env,
    },
  });
  const logger = createLogger({ service: 'api-test', level: 'error' });
  const store = await createDataStore({ url: config.databaseUrl });
  await store.migrate();
  const server: http.Server = await listen(createApp({ config, logger, store, ...(opts.now ? { now: opts.now } : {}) }), 0, '127.0.0.1');
  const client = await connectTestClient(`http://127.0.0.1:${boundPort(server)}`, operatorToken);
  return {
    ...client,
    config,
    store,
    async close() {
      await closeServer(server);
      await store.close();
      await db?.drop();
    },
  };
}

/** Fails with the whole answer unless it is the contract's error envelope with this status and code; returns `details`. */
export function expectError(answer: Answer, status: number, code: string): Record<string, unknown> {
  const error = (answer.body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (answer.status !== status || error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${answer.status} ${answer.text.slice(0, 1000)}`);
  }
  expect(Object.keys(error).sort()).toEqual(['code', 'details', 'message']);
  expect(typeof error.message).toBe('string');
  expect(error.details !== null && typeof error.details === 'object' && !Array.isArray(error.details)).toBe(true);
  return error.details as Record<string, unknown>;
}

export interface ValidationIssue {
  location: string;
  field: string;
  message: string;
  type: string;
}

/** A 422 validation_error whose details.errors are well-formed and include one at `location` whose field starts with `field`. */
export function expectValidationError(answer: Answer, location: 'body' | 'query' | 'header', field: string): ValidationIssue[] {
  const details = expectError(answer, 422, 'validation_error');
  const errors = details.errors as ValidationIssue[];
  expect(Array.isArray(errors) && errors.length > 0).toBe(true);
  for (const issue of errors) {
    expect(Object.keys(issue).sort()).toEqual(['field', 'location', 'message', 'type']);
    expect(issue).toEqual({ location: expect.any(String), field: expect.any(String), message: expect.any(String), type: expect.any(String) });
  }
  if (!errors.some((e) => e.location === location && (e.field === field || e.field.startsWith(`${field}.`)))) {
    throw new Error(`expected a ${location} error on ${field}, got ${JSON.stringify(errors)}`);
  }
  return errors;
}
