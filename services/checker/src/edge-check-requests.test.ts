import type { DomainRow } from '@cds/data';
import { edgeRequestUseless } from './edge-check-requests';

describe('edgeRequestUseless', () => {
  const domain = { status: 'pending_dns' } as DomainRow;
  test('only a pending_dns domain has something to learn from the edge', () => {
    expect(edgeRequestUseless({ domain })).toBe(false);
    for (const status of ['ready', 'attention_required', 'deleting'] as const) expect(edgeRequestUseless({ domain: { ...domain, status } })).toBe(true);
  });
});
