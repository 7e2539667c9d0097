import { ApiError } from './api-error';
import { CustomDomainClient } from './client';
import type { FetchLike } from './transport';

interface Sent {
  url: string;
  init: RequestInit;
}

/** A fetch that answers from a script (the last answer repeats) and records what it was sent. */
function fakeFetch(answers: Array<{ status: number; body?: unknown; headers?: Record<string, string> }>): { fetch: FetchLike; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    const answer = answers[Math.min(sent.length, answers.length - 1)]!;
    sent.push({ url, init });
    const body = answer.body === undefined ? null : JSON.stringify(answer.body);
    return new Response(body, { status: answer.status, headers: { 'content-type': 'application/json', ...answer.headers } });
  };
  return { fetch, sent };
}

const limited = { status: 429, headers: { 'retry-after': '2' }, body: { error: { code: 'rate_limited', message: 'Too many requests', details: {} } } };
const page = { status: 200, body: { items: [], limit: 50, offset: 0 } };

function client(fetch: FetchLike, extra: { maxRetries?: number } = {}) {
  const slept: number[] = [];
  const sleep = async (ms: number) => void slept.push(ms);
  return { api: new CustomDomainClient({ baseUrl: 'https://domains.example.com/', apiKey: 'cd_key', fetch, sleep, ...extra }), slept };
}

test('a 429 is retried after Retry-After seconds, then the answer is returned', async () => {
  const { fetch, sent } = fakeFetch([limited, limited, page]);
  const { api, slept } = client(fetch);
  await expect(api.domains.list({ status: 'ready', limit: 10 })).resolves.toEqual({ items: [], limit: 50, offset: 0 });
  expect(slept).toEqual([2000, 2000]);
  expect(sent).toHaveLength(3);
  expect(sent[0]!.url).toBe('https://domains.example.com/v1/domains?status=ready&limit=10');
  expect((sent[0]!.init.headers as Record<string, string>).authorization).toBe('Bearer cd_key');
});

test('retries are bounded: after maxRetries the 429 is thrown as an ApiError', async () => {
  const { fetch, sent } = fakeFetch([limited]);
  const { api, slept } = client(fetch, { maxRetries: 1 });
  const error = await api.domains.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 429, code: 'rate_limited', message: 'Too many requests', details: {}, retryAfterSeconds: 2 });
  expect(sent).toHaveLength(2);
  expect(slept).toEqual([2000]);
});

test('a 429 without Retry-After, or another error, is thrown at once', async () => {
  const { fetch, sent } = fakeFetch([{ status: 429, body: { error: { code: 'rate_limited', message: 'slow down', details: {} } } }]);
  await expect(client(fetch).api.domains.recheck('d1')).rejects.toMatchObject({ status: 429, retryAfterSeconds: null });
  expect(sent).toHaveLength(1);
  const conflict = fakeFetch([{ status: 409, body: { error: { code: 'hostname_already_claimed', message: 'taken', details: { hostname: 'a.example.com' } } } }]);
  await expect(client(conflict.fetch).api.domains.create({ hostname: 'a.example.com', reference: 'w1' })).rejects.toMatchObject({
    status: 409, code: 'hostname_already_claimed', details: { hostname: 'a.example.com' },
  });
  expect(conflict.sent).toHaveLength(1);
});

test('create sends an Idempotency-Key: a fresh uuid per call, the same one on a retry, or the one given', async () => {
  const created = { status: 201, body: { id: 'd1' } };
  const { fetch, sent } = fakeFetch([limited, created, created, created]);
  const { api } = client(fetch);
  await api.domains.create({ hostname: 'a.example.com', reference: 'w1' });
  await api.domains.create({ hostname: 'b.example.com', reference: 'w1' });
  await api.domains.create({ hostname: 'c.example.com', reference: 'w1' }, { idempotencyKey: 'mine' });
  const keys = sent.map((s) => (s.init.headers as Record<string, string>)['idempotency-key']);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
  expect(keys[2]).not.toBe(keys[0]);
  expect(keys[3]).toBe('mine');
  expect(JSON.parse(sent[1]!.init.body as string)).toEqual({ hostname: 'a.example.com', reference: 'w1' });
});

test('a body that is not the error envelope still gives an ApiError with the status', async () => {
  const fetch: FetchLike = async () => new Response('<html>bad gateway</html>', { status: 502 });
  await expect(client(fetch).api.webhooks.list()).rejects.toMatchObject({ status: 502, code: 'unexpected_response' });
});

test('webhooks.get picks the subscription from the list, 404 webhook_not_found otherwise', async () => {
  const { fetch } = fakeFetch([{ status: 200, body: [{ id: 'w1', url: 'https://h.example.com/' }] }]);
  const { api } = client(fetch);
  await expect(api.webhooks.get('w1')).resolves.toMatchObject({ id: 'w1' });
  await expect(api.webhooks.get('w2')).rejects.toMatchObject({ status: 404, code: 'webhook_not_found' });
});

test('paths and queries: ids are encoded, replaySince sends an ISO since, attempts unwraps items', async () => {
  const { fetch, sent } = fakeFetch([{ status: 202, body: { since: 'x', replayed: 0, delivery_ids: [] } }, { status: 200, body: { items: [{ attempt: 1 }] } }]);
  const { api } = client(fetch);
  await api.deliveries.replaySince('w/1', new Date('2026-01-02T03:04:05Z'));
  await expect(api.attempts.list('w1', 'd1')).resolves.toEqual([{ attempt: 1 }]);
  expect(sent.map((s) => `${s.init.method} ${s.url}`)).toEqual([
    'POST https://domains.example.com/v1/webhooks/w%2F1/replay?since=2026-01-02T03%3A04%3A05.000Z',
    'GET https://domains.example.com/v1/webhooks/w1/deliveries/d1/attempts',
  ]);
});
