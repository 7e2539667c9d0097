import {
  FREE_LEASE,
  HOUSEKEEPING_BATCH_ROWS,
  HOUSEKEEPING_GROUPS,
  HOUSEKEEPING_TABLES,
  isLastBatch,
  pauseAfterStatement,
  leaseDecision,
  leaseText,
  parseLease,
  retentionCutoffs,
  type HousekeepingLease,
} from './housekeeping';

const NOW = new Date('2026-05-10T12:00:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;
const SETTINGS = { housekeepingInterval: 10 * MINUTE, outboxRetention: 7 * DAY, webhookDeliveryRetention: 30 * DAY, deletedDomainRetention: 30 * DAY };
const minutesAgo = (n: number) => new Date(NOW.getTime() - n * MINUTE);

describe('retentionCutoffs', () => {
  it('puts each cutoff one retention before the run', () => {
    expect(retentionCutoffs(NOW, SETTINGS)).toEqual({
      outboxPublishedBefore: new Date('2026-05-03T12:00:00.000Z'),
      deliveriesCreatedBefore: new Date('2026-04-10T12:00:00.000Z'),
      domainsDeletedBefore: new Date('2026-04-10T12:00:00.000Z'),
      expiredAt: NOW,
      firstTrafficDayKept: '2025-04-05',
    });
  });

  it('follows the settings', () => {
    const cutoffs = retentionCutoffs(NOW, { ...SETTINGS, outboxRetention: 1000, webhookDeliveryRetention: DAY, deletedDomainRetention: 2 * DAY });
    expect(cutoffs.outboxPublishedBefore).toEqual(new Date('2026-05-10T11:59:59.000Z'));
    expect(cutoffs.deliveriesCreatedBefore).toEqual(new Date('2026-05-09T12:00:00.000Z'));
    expect(cutoffs.domainsDeletedBefore).toEqual(new Date('2026-05-08T12:00:00.000Z'));
  });

  it('keeps 400 whole UTC days of traffic, whatever the hour', () => {
    expect(retentionCutoffs(new Date('2026-05-10T00:00:00.000Z'), SETTINGS).firstTrafficDayKept).toBe('2025-04-05');
    expect(retentionCutoffs(new Date('2026-05-10T23:59:59.999Z'), SETTINGS).firstTrafficDayKept).toBe('2025-04-05');
  });
});

describe('batches', () => {
  it('stops at the first batch below the limit', () => {
    expect(HOUSEKEEPING_BATCH_ROWS).toBe(1000);
    expect(isLastBatch(1000)).toBe(false);
    expect(isLastBatch(999)).toBe(true);
    expect(isLastBatch(0)).toBe(true);
  });

  it('pauses after a statement in proportion to its duration, within bounds', () => {
    expect(pauseAfterStatement(40)).toBe(160);
    expect(pauseAfterStatement(40, 0)).toBe(0);
    expect(pauseAfterStatement(5000)).toBe(1000);
    expect(pauseAfterStatement(-1)).toBe(0);
  });

  it('goes through every table once, in groups that keep their order', () => {
    expect(HOUSEKEEPING_GROUPS.flat()).toEqual([...HOUSEKEEPING_TABLES]);
    expect(HOUSEKEEPING_GROUPS.filter((group) => group.length > 1)).toEqual([['webhook_attempts', 'webhook_deliveries']]);
  });

  it('prunes rows that point at a row before that row', () => {
    const order = (table: string) => HOUSEKEEPING_TABLES.indexOf(table as (typeof HOUSEKEEPING_TABLES)[number]);
    expect(order('webhook_attempts')).toBeLessThan(order('webhook_deliveries'));
    for (const child of ['domain_checks', 'domain_check_runs', 'certificates', 'acme_challenges']) expect(order(child)).toBeLessThan(order('domains'));
  });
});

describe('leaseDecision', () => {
  const interval = SETTINGS.housekeepingInterval;
  const lease = (fields: Partial<HousekeepingLease>): HousekeepingLease => ({ ...FREE_LEASE, ...fields });

  it('takes a free lease when no run is recorded', () => {
    expect(leaseDecision(FREE_LEASE, NOW, interval)).toEqual({ take: true });
  });

  it('leaves a lease another runner holds until it lapses', () => {
    const held = lease({ holder: 'a', until: new Date(NOW.getTime() + 1) });
    expect(leaseDecision(held, NOW, interval)).toEqual({ take: false, reason: 'busy' });
    // A crashed holder renews nothing: its claim lapses and the next runner takes over.
    expect(leaseDecision({ ...held, until: NOW }, NOW, interval)).toEqual({ take: true });
  });

  it('skips while the last successful run started less than an interval ago, with room for timer drift', () => {
    expect(leaseDecision(lease({ lastRunAt: minutesAgo(5) }), NOW, interval)).toEqual({ take: false, reason: 'not_due' });
    expect(leaseDecision(lease({ lastRunAt: minutesAgo(8.9) }), NOW, interval)).toEqual({ take: false, reason: 'not_due' });
    expect(leaseDecision(lease({ lastRunAt: minutesAgo(9) }), NOW, interval)).toEqual({ take: true });
    expect(leaseDecision(lease({ lastRunAt: minutesAgo(60) }), NOW, interval)).toEqual({ take: true });
  });

  it('runs when the recorded run lies more than an interval ahead (the clock went back)', () => {
    expect(leaseDecision(lease({ lastRunAt: minutesAgo(-5) }), NOW, interval)).toEqual({ take: false, reason: 'not_due' });
    expect(leaseDecision(lease({ lastRunAt: minutesAgo(-11) }), NOW, interval)).toEqual({ take: true });
  });
});

describe('lease text', () => {
  it('round-trips', () => {
    const lease: HousekeepingLease = { holder: 'runner-1', until: NOW, lastRunAt: minutesAgo(10), lastSuccessAt: minutesAgo(9) };
    expect(leaseText(lease)).toBe(
      '{"holder":"runner-1","until":"2026-05-10T12:00:00.000Z","last_run_at":"2026-05-10T11:50:00.000Z","last_success_at":"2026-05-10T11:51:00.000Z"}',
    );
    expect(parseLease(leaseText(lease))).toEqual(lease);
    expect(parseLease(leaseText(FREE_LEASE))).toEqual(FREE_LEASE);
  });

  it('reads anything else as a free lease', () => {
    for (const text of ['', 'not json', 'null', '42', '{"holder":7,"until":"yesterday"}']) expect(parseLease(text)).toEqual(FREE_LEASE);
  });
});
