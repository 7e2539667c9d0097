import { ROUTING_KEYS } from '@cds/core';
import type { Logger } from '@cds/logging';
import type { Bus } from '@cds/messaging';
import type { DomainRoute } from '../caches/route-table';
import { CheckRequests, CheckRequestThrottle, CHECK_REQUEST_SPACING_MS } from './check-requests';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => { t += ms; } };
}

const route = (domainId: string): DomainRoute => ({
  kind: 'domain', domainId, hostname: `${domainId}.example.com`, reference: 'ws_1', status: 'pending_dns',
  application: { id: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', slug: 'shop', status: 'active', limits: {} as never }, originUrl: null, redirectTo: null,
});

function recordingLogger() {
  const lines: Array<[string, string]> = [];
  const logger: Logger = {
    error: (m) => lines.push(['error', m]), warn: (m) => lines.push(['warn', m]), info: (m) => lines.push(['info', m]), debug: (m) => lines.push(['debug', m]),
  };
  return { logger, lines };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CheckRequestThrottle', () => {
  it('lets one request per domain through per 10 s, each domain apart', () => {
    const c = clock();
    const throttle = new CheckRequestThrottle({ now: c.now });
    expect(throttle.take('d1')).toBe(true);
    expect(throttle.take('d1')).toBe(false);
    expect(throttle.take('d2')).toBe(true);
    c.advance(CHECK_REQUEST_SPACING_MS - 1);
    expect(throttle.take('d1')).toBe(false);
    c.advance(1);
    expect(throttle.take('d1')).toBe(true);
    expect(throttle.take('d2')).toBe(true);
    expect(throttle.take('d1')).toBe(false);
  });

  it('forgets domains once their 10 s have passed: memory holds what one spacing brings', () => {
    const c = clock();
    const throttle = new CheckRequestThrottle({ now: c.now });
    for (let i = 0; i < 1000; i++) {
      expect(throttle.take(`d${i}`)).toBe(true);
      c.advance(5);
    }
    expect(throttle.size).toBe(1000);
    c.advance(CHECK_REQUEST_SPACING_MS);
    expect(throttle.take('other')).toBe(true);
    expect(throttle.size).toBe(1);
    // A steady stream of new domains keeps the map at one spacing's worth.
    for (let i = 0; i < 10_000; i++) {
      throttle.take(`e${i}`);
      c.advance(100);
    }
    expect(throttle.size).toBeLessThanOrEqual(CHECK_REQUEST_SPACING_MS / 100);
  });

  it('forgets in time order, a renewed domain moving to the end', () => {
    const c = clock();
    const throttle = new CheckRequestThrottle({ now: c.now, spacingMs: 100 });
    throttle.take('a');
    c.advance(60);
    throttle.take('b');
    c.advance(40);
    // a's spacing is over: it is forgotten and taken again (now the newest); b stays.
    expect(throttle.take('a')).toBe(true);
    expect(throttle.take('b')).toBe(false);
    c.advance(60);
    expect(throttle.take('b')).toBe(true);
    expect(throttle.take('a')).toBe(false);
    expect(throttle.size).toBe(2);
  });
});

describe('CheckRequests', () => {
  it('publishes domain.check.requested with reason edge, once per domain per spacing, without waiting for it', async () => {
    const c = clock();
    const published: Array<[string, unknown]> = [];
    const bus = { publish: jest.fn(async (key: string, payload: unknown) => { published.push([key, payload]); }) } as unknown as Bus;
    const outcomes: boolean[] = [];
    const requests = new CheckRequests({ bus, logger: recordingLogger().logger, throttle: new CheckRequestThrottle({ now: c.now }), onPublished: (ok) => outcomes.push(ok) });
    for (let i = 0; i < 20; i++) expect(requests.request(route('d1'))).toBeUndefined();
    requests.request(route('d2'));
    await settle();
    expect(published).toEqual([
      [ROUTING_KEYS.domainCheckRequested, { domain_id: 'd1', application_id: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', reason: 'edge' }],
      [ROUTING_KEYS.domainCheckRequested, { domain_id: 'd2', application_id: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', reason: 'edge' }],
    ]);
    expect(outcomes).toEqual([true, true]);
    c.advance(CHECK_REQUEST_SPACING_MS);
    requests.request(route('d1'));
    await settle();
    expect(published).toHaveLength(3);
  });

  it('a failing bus (rejecting or throwing) fails no request: warned once, debug after, warned again after a success', async () => {
    const c = clock();
    let mode: 'reject' | 'throw' | 'ok' = 'reject';
    const bus = {
      publish: (): Promise<void> => {
        if (mode === 'throw') throw new Error('invalid');
        return mode === 'reject' ? Promise.reject(new Error('not connected to the broker')) : Promise.resolve();
      },
    } as unknown as Bus;
    const { logger, lines } = recordingLogger();
    const outcomes: boolean[] = [];
    const requests = new CheckRequests({ bus, logger, throttle: new CheckRequestThrottle({ now: c.now }), onPublished: (ok) => outcomes.push(ok) });
    expect(() => requests.request(route('d1'))).not.toThrow();
    requests.request(route('d2'));
    mode = 'throw';
    expect(() => requests.request(route('d3'))).not.toThrow();
    await settle();
    expect(lines.map(([level]) => level)).toEqual(['warn', 'debug', 'debug']);
    mode = 'ok';
    requests.request(route('d4'));
    await settle();
    mode = 'reject';
    requests.request(route('d5'));
    await settle();
    expect(lines.map(([level]) => level)).toEqual(['warn', 'debug', 'debug', 'warn']);
    expect(outcomes).toEqual([false, false, false, true, false]);
  });
});
