// Checks answered by the database: reachable, schema current, clock, and the
// backlogs the services keep there.
import type { DataStore } from '@cds/data';
import { FINDING_STATUSES, type Check } from '../check';
import { CHECK_NAMES } from '../check-names';
import { certificatesFinding, clockSkewFinding, migrationsFinding, outboxFinding, THRESHOLDS, webhooksFinding } from '../findings';

const TIMEOUT_MS = 5000;
const DAY_MS = 24 * 60 * 60 * 1000;

export function databaseChecks(store: DataStore, now: () => Date): Check[] {
  return [
    {
      name: CHECK_NAMES.database,
      timeoutMs: TIMEOUT_MS,
      run: async () => {
        await store.ping();
        return { status: FINDING_STATUSES.ok, message: `${store.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'} answered` };
      },
    },
    {
      name: CHECK_NAMES.migrations,
      timeoutMs: 2 * TIMEOUT_MS,
      run: async () => migrationsFinding(await store.pendingMigrations(), await store.pendingIndexes()),
    },
    {
      name: CHECK_NAMES.clockSkew,
      timeoutMs: TIMEOUT_MS,
      run: async () => {
        const before = now().getTime();
        const database = await store.run((r) => r.diagnostics.now());
        const after = now().getTime();
        // Compared with the middle of the round trip, so query latency is not counted as skew.
        return clockSkewFinding(database.getTime() - (before + after) / 2);
      },
    },
    {
      name: CHECK_NAMES.outbox,
      timeoutMs: TIMEOUT_MS,
      run: async () => outboxFinding((await store.run((r) => r.outbox.backlog())).oldestAt, now()),
    },
    {
      name: CHECK_NAMES.certificates,
      timeoutMs: TIMEOUT_MS,
      run: async () => {
        const horizon = new Date(now().getTime() + THRESHOLDS.certificateWarnDays * DAY_MS);
        return certificatesFinding(await store.run((r) => r.diagnostics.certificatesExpiringBefore(horizon)));
      },
    },
    {
      name: CHECK_NAMES.webhooks,
      timeoutMs: TIMEOUT_MS,
      run: async () => webhooksFinding(await store.run((r) => r.diagnostics.webhookBacklog()), now()),
    },
  ];
}
