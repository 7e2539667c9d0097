import { HOUSEKEEPING_TABLES, retentionCutoffs } from '@cds/core';
import { pruneStatement } from './prune-statements';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const cutoffs = retentionCutoffs(NOW, { housekeepingInterval: 600_000, outboxRetention: 1, webhookDeliveryRetention: 2, deletedDomainRetention: 3 });

describe('pruneStatement', () => {
  it.each(HOUSEKEEPING_TABLES)('deletes at most 1,000 rows of %s by address, with the condition repeated', (table) => {
    const postgres = pruneStatement('postgres', table, cutoffs).sql;
    const sqlite = pruneStatement('sqlite', table, cutoffs).sql;
    expect(postgres).toMatch(new RegExp(`^DELETE FROM ${table} WHERE ctid = ANY\\(ARRAY\\(SELECT ctid FROM ${table} WHERE .+ LIMIT 1000\\)\\) AND `, 's'));
    expect(sqlite).toMatch(new RegExp(`^DELETE FROM ${table} WHERE rowid IN \\(SELECT rowid FROM ${table} WHERE .+ LIMIT 1000\\) AND `, 's'));
    // The pick's LIMIT; the webhook tables' condition names a window of deliveries (in the pick and repeated).
    expect(postgres.match(/LIMIT 1000/g)).toHaveLength(table.startsWith('webhook_') ? 3 : 1);
  });

  it('takes each table its own cutoff', () => {
    expect(pruneStatement('sqlite', 'outbox', cutoffs).params).toEqual({ before: new Date(NOW.getTime() - 1) });
    expect(pruneStatement('sqlite', 'webhook_attempts', cutoffs).params).toEqual({ before: new Date(NOW.getTime() - 2) });
    expect(pruneStatement('sqlite', 'webhook_deliveries', cutoffs).params).toEqual({ before: new Date(NOW.getTime() - 2) });
    for (const table of ['domain_checks', 'domain_check_runs', 'certificates', 'acme_challenges', 'domains'] as const) {
      expect(pruneStatement('sqlite', table, cutoffs).params).toEqual({ before: new Date(NOW.getTime() - 3) });
    }
    expect(pruneStatement('sqlite', 'idempotency_keys', cutoffs).params).toEqual({ at: NOW });
    expect(pruneStatement('sqlite', 'rate_counters', cutoffs).params).toEqual({ at: NOW });
    expect(pruneStatement('sqlite', 'traffic_daily', cutoffs).params).toEqual({ day: '2025-04-27' });
  });

  it("deletes a deleted domain's recent check runs on the same condition as its checks", () => {
    for (const kind of ['postgres', 'sqlite'] as const) {
      const checks = pruneStatement(kind, 'domain_checks', cutoffs).sql;
      expect(pruneStatement(kind, 'domain_check_runs', cutoffs).sql).toBe(checks.replaceAll('domain_checks', 'domain_check_runs'));
      expect(checks).toContain('domain_id IN (SELECT d.id FROM domains d WHERE d.deleted_at < :before)');
    }
  });

  it('never picks pending deliveries or set-aside outbox rows', () => {
    expect(pruneStatement('postgres', 'webhook_deliveries', cutoffs).sql).toContain("state IN ('delivered', 'abandoned')");
    expect(pruneStatement('postgres', 'webhook_attempts', cutoffs).sql).toContain("state IN ('delivered', 'abandoned')");
    expect(pruneStatement('postgres', 'outbox', cutoffs).sql).toContain('set_aside_at IS NULL');
  });
});
