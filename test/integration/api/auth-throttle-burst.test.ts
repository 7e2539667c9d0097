// The invalid-credential throttles under parallel requests (DECISIONS §4): a
// failure is counted and compared in one atomic step, so a burst of wrong
// credentials gets at most the limit of answers from the credential check (401)
// and 429 for the rest; valid credentials sent in parallel are not refused
// before the limit of failures is reached.
import { expectError, startTestApi, type Answer, type TestApi } from '../../support/api-harness';
import { TestClock } from '../../support/test-clock';

const LIMIT = 10;
const BURST = 50;
const APPS = '/operator/v1/applications';
const FAST = { api_requests_per_minute: 100_000 };

/** A well-formed /v1 key that was never issued (cd_ + 43 base62 characters), different for each i. */
const unknownKey = (i: number) => `cd_${String(i).padStart(4, '0')}${'Zq9'.repeat(13)}`;

function tally(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

/** Every 401 is the contract's unauthorized, every 429 its rate_limited with an integer Retry-After within the minute. */
function expectThrottleAnswers(answers: readonly Answer[]): void {
  for (const a of answers) {
    if (a.status === 401) {
      expectError(a, 401, 'unauthorized');
      continue;
    }
    expectError(a, 429, 'rate_limited');
    expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(a.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  }
}

describe('operator API: failed-token throttle under a burst', () => {
  let api: TestApi;
  const clock = new TestClock();
  beforeAll(async () => {
    api = await startTestApi({ OPERATOR_AUTH_FAILURES_PER_MINUTE: String(LIMIT) }, { now: clock.now });
  });
  afterAll(() => api?.close());

  it(`answers ${BURST} parallel wrong tokens with ${LIMIT} × 401 and 429 for the rest`, async () => {
    clock.startWindow(60);
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => api.request('GET', APPS, { token: `wrong-operator-token-${i}` })));
    expect(tally(answers)).toEqual({ 401: LIMIT, 429: BURST - LIMIT });
    expectThrottleAnswers(answers);
    // The address stays throttled for the window, the right token included.
    expectError(await api.request('GET', APPS, { token: api.operatorToken }), 429, 'rate_limited');
  });

  it('does not refuse parallel valid tokens while fewer than the limit of failures are counted', async () => {
    clock.startWindow(60);
    for (let i = 0; i < LIMIT - 1; i += 1) expectError(await api.request('GET', APPS, { token: `wrong-${i}` }), 401, 'unauthorized');
    const answers = await Promise.all(Array.from({ length: BURST }, () => api.request('GET', APPS, { token: api.operatorToken })));
    expect(tally(answers)).toEqual({ 200: BURST });
    // The last failure the window allows is still answered, then the address is throttled.
    expectError(await api.request('GET', APPS, { token: 'wrong-last' }), 401, 'unauthorized');
    expectError(await api.request('GET', APPS, { token: api.operatorToken }), 429, 'rate_limited');
  });
});

describe('/v1: invalid-credential throttle under a burst', () => {
  let api: TestApi;
  let key: string;
  const clock = new TestClock();
  beforeAll(async () => {
    api = await startTestApi({ V1_AUTH_FAILURES_PER_MINUTE: String(LIMIT) }, { now: clock.now });
    key = (await api.createApplication(undefined, FAST)).key;
  });
  afterAll(() => api?.close());

  it(`answers ${BURST} parallel wrong credentials with ${LIMIT} × 401 and 429 for the rest`, async () => {
    clock.startWindow(60);
    // Unknown well-formed keys (looked up in the database), malformed ones and none at all: all failures.
    const headersOf = (i: number): Record<string, string> =>
      i % 5 === 3 ? {} : i % 5 === 4 ? { authorization: 'Bearer cd_short' } : { authorization: `Bearer ${unknownKey(i)}` };
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => api.request('GET', '/v1/domains', { headers: headersOf(i) })));
    expect(tally(answers)).toEqual({ 401: LIMIT, 429: BURST - LIMIT });
    expectThrottleAnswers(answers);
    const valid = await api.request('GET', '/v1/domains', { token: key });
    expectError(valid, 429, 'rate_limited');
    // A throttled answer says nothing about the key: no RateLimit headers.
    expect(valid.headers.get('ratelimit-limit')).toBeNull();
  });

  it('does not refuse parallel valid keys while fewer than the limit of failures are counted', async () => {
    clock.startWindow(60);
    for (let i = 0; i < LIMIT - 1; i += 1) expectError(await api.request('GET', '/v1/domains', { token: unknownKey(i) }), 401, 'unauthorized');
    const answers = await Promise.all(Array.from({ length: BURST }, () => api.request('GET', '/v1/domains', { token: key })));
    expect(tally(answers)).toEqual({ 200: BURST });
    expectError(await api.request('GET', '/v1/domains', { token: unknownKey(99) }), 401, 'unauthorized');
    expectError(await api.request('GET', '/v1/domains', { token: key }), 429, 'rate_limited');
  });
});
