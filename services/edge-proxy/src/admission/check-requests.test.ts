import { EDGE_CHECK_SPACING_MS, KeySpacing, ROUTING_KEYS } from '@cds/core';
import type { Logger } from '@cds/logging';
import type { Bus } from '@cds/messaging';
import type { DomainRoute } from '../caches/route-table';
import { CheckRequests } from './check-requests';

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

describe('CheckRequests', () => {
  it('publishes domain.check.requested with reason edge, once per domain per spacing, without waiting for it', async () => {
    const c = clock();
    const published: Array<[string, unknown]> = [];
    const bus = { publish: jest.fn(async (key: string, payload: unknown) => { published.push([key, payload]); }) } as unknown as Bus;
    const outcomes: boolean[] = [];
    const requests = new CheckRequests({ bus, logger: recordingLogger().logger, throttle: new KeySpacing({ spacingMs: EDGE_CHECK_SPACING_MS, now: c.now }), onPublished: (ok) => outcomes.push(ok) });
    for (let i = 0; i < 20; i++) expect(requests.request(route('d1'))).toBeUndefined();
    requests.request(route('d2'));
    await settle();
    expect(published).toEqual([
      [ROUTING_KEYS.domainCheckRequested, { domain_id: 'd1', application_id: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', reason: 'edge' }],
      [ROUTING_KEYS.domainCheckRequested, { domain_id: 'd2', application_id: 'a4b0f5b2-8d51-4d4c-9d62-0c4f5a6b7c8d', reason: 'edge' }],
    ]);
    expect(outcomes).toEqual([true, true]);
    c.advance(EDGE_CHECK_SPACING_MS);
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
    const requests = new CheckRequests({ bus, logger, throttle: new KeySpacing({ spacingMs: EDGE_CHECK_SPACING_MS, now: c.now }), onPublished: (ok) => outcomes.push(ok) });
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
