import type { DomainRow } from '@cds/data';
import { EDGE_CHECK_SPACING_MS, EdgeCheckSpacing, edgeRequestUseless } from './edge-check-requests';

const T0 = new Date('2026-11-28T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('EdgeCheckSpacing', () => {
  test('one run per domain per 10 s, whatever the number of edges asking', () => {
    const spacing = new EdgeCheckSpacing();
    expect(spacing.take('a', at(0))).toBe(true);
    for (const ms of [0, 1, 5_000, EDGE_CHECK_SPACING_MS - 1]) expect(spacing.take('a', at(ms))).toBe(false);
    expect(spacing.take('b', at(1))).toBe(true);
    expect(spacing.take('a', at(EDGE_CHECK_SPACING_MS))).toBe(true);
    expect(spacing.take('a', at(EDGE_CHECK_SPACING_MS + 1))).toBe(false);
  });

  test('forgets the domains the spacing no longer covers', () => {
    const spacing = new EdgeCheckSpacing();
    for (let i = 0; i < 100; i += 1) spacing.take(`d${i}`, at(i));
    expect(spacing.size).toBe(100);
    spacing.take('late', at(EDGE_CHECK_SPACING_MS + 50));
    expect(spacing.size).toBe(50);
  });
});

describe('edgeRequestUseless', () => {
  const domain = { status: 'pending_dns' } as DomainRow;
  test('only a pending_dns domain has something to learn from the edge', () => {
    expect(edgeRequestUseless({ domain })).toBe(false);
    for (const status of ['ready', 'attention_required', 'deleting'] as const) expect(edgeRequestUseless({ domain: { ...domain, status } })).toBe(true);
  });
});
