import {
  CHECK_ERROR_CODES,
  CHECK_STATUSES,
  CHECK_TYPES,
  DOMAIN_STATUSES,
  DomainStatus,
  EVENT_TYPES,
  StatusTransition,
  byCheckType,
  canRecheck,
  isLive,
  nextStatus,
} from './domain-status';

describe('domain status constants', () => {
  it('lists the contract values in order', () => {
    expect(DOMAIN_STATUSES).toEqual(['pending_dns', 'ready', 'attention_required', 'deleting']);
    expect(CHECK_TYPES).toEqual(['ownership', 'routing', 'certificate', 'origin']);
    expect(CHECK_STATUSES).toEqual(['pending', 'passing', 'failing']);
    expect(EVENT_TYPES).toEqual(['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted']);
    expect(Object.keys(CHECK_ERROR_CODES)).toEqual([...CHECK_TYPES]);
  });
});

describe('nextStatus', () => {
  const cases: Array<[DomainStatus, boolean, StatusTransition]> = [
    ['pending_dns', true, { status: 'ready', event: 'domain.ready' }],
    ['pending_dns', false, { status: 'pending_dns', event: null }],
    ['ready', true, { status: 'ready', event: null }],
    ['ready', false, { status: 'attention_required', event: 'domain.attention_required' }],
    ['attention_required', true, { status: 'ready', event: 'domain.recovered' }],
    ['attention_required', false, { status: 'attention_required', event: null }],
    ['deleting', true, { status: 'deleting', event: null }],
    ['deleting', false, { status: 'deleting', event: null }],
  ];
  it.each(cases)('%s with all passing=%s -> %j', (current, allPassing, expected) => {
    expect(nextStatus(current, allPassing)).toEqual(expected);
  });
});

describe('isLive and canRecheck', () => {
  it.each(DOMAIN_STATUSES)('%s', (status) => {
    expect(isLive(status)).toBe(status !== 'deleting');
    expect(canRecheck(status)).toBe(status !== 'deleting');
  });
});

describe('byCheckType', () => {
  it('sorts checks ownership → origin', () => {
    const checks = [{ type: 'origin' }, { type: 'ownership' }, { type: 'certificate' }, { type: 'routing' }] as const;
    expect([...checks].sort(byCheckType).map((c) => c.type)).toEqual([...CHECK_TYPES]);
  });
});
