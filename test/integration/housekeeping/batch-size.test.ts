// Housekeeping's batch size on the real data store (libs/core nextBatchRows):
// on PostgreSQL each statement says how much WAL it wrote, and a table whose
// rows write much of it is pruned in smaller batches; SQLite does not say, and
// its batches stay at HOUSEKEEPING_BATCH_ROWS.
import { randomBytes } from 'node:crypto';
import { HOUSEKEEPING_BATCH_ROWS, HOUSEKEEPING_STATEMENT_WAL_BYTES, nextBatchRows } from '@cds/core';
import { withClient } from '../../support/test-database';
import { openMigratedStore, type MigratedStore } from '../data/data-fixtures';
import { aSubscription, countRows, DAY, runnerOn, someDeliveries } from './housekeeping-fixtures';

const WIDE_ROWS = 1500;

describe('housekeeping batch size', () => {
  let ctx: MigratedStore;

  beforeEach(async () => {
    ctx = await openMigratedStore();
  });
  afterEach(() => ctx.close());

  it('prunes wide rows in batches sized by the WAL they write, and in full batches where the database does not say', async () => {
    const sub = await aSubscription(ctx.store);
    // Delivered a month ago, one attempt each, about 1.8 KB of payload: kept in the row itself (under PostgreSQL's
    // TOAST threshold), four rows to a page.
    for (let i = 0; i < WIDE_ROWS; i += 500) {
      await someDeliveries(ctx.store, sub, 500, 'delivered', new Date(Date.now() - 31 * DAY), null, () => JSON.stringify({ pad: randomBytes(900).toString('hex') }));
    }
    // After a checkpoint the first change to each page writes the whole page to the WAL, as a backlog's old pages do.
    if (ctx.db.kind === 'postgres') await withClient(ctx.db.url, (client) => client.query('CHECKPOINT'));
    const { runner, statements } = runnerOn(ctx.store, () => new Date());

    const report = await runner.runOnce();

    // Every row went: a narrower window for the deliveries than for their attempts must not end the group early.
    expect(report).toMatchObject({ outcome: 'success', deleted: expect.objectContaining({ webhook_deliveries: WIDE_ROWS, webhook_attempts: WIDE_ROWS }) });
    expect(await countRows(ctx.db, 'webhook_deliveries')).toBe(0);
    expect(await countRows(ctx.db, 'webhook_attempts')).toBe(0);
    const batches = statements.filter((s) => s.table === 'webhook_deliveries');
    const attempts = statements.filter((s) => s.table === 'webhook_attempts');
    // The two tables of the group take batches of one size, round after round.
    expect(attempts.map((s) => s.limit)).toEqual(batches.map((s) => s.limit));
    const [first, second] = batches;
    expect(first).toMatchObject({ limit: HOUSEKEEPING_BATCH_ROWS, deleted: HOUSEKEEPING_BATCH_ROWS });
    if (ctx.db.kind === 'postgres') {
      expect(statements.every((s) => s.walBytes !== null)).toBe(true);
      expect(first?.walBytes).toBeGreaterThan(HOUSEKEEPING_STATEMENT_WAL_BYTES);
      expect(second?.limit).toBeLessThan(HOUSEKEEPING_BATCH_ROWS);
      expect(second?.limit).toBeLessThanOrEqual(nextBatchRows(HOUSEKEEPING_BATCH_ROWS, HOUSEKEEPING_BATCH_ROWS, first?.walBytes ?? null));
      // Every batch but the last was full at its own limit.
      expect(batches.slice(0, -1).every((s) => s.deleted === s.limit)).toBe(true);
      expect(batches.length).toBeGreaterThan(2);
    } else {
      expect(statements.every((s) => s.walBytes === null && s.limit === HOUSEKEEPING_BATCH_ROWS)).toBe(true);
      expect(batches.map((s) => s.deleted)).toEqual([HOUSEKEEPING_BATCH_ROWS, WIDE_ROWS - HOUSEKEEPING_BATCH_ROWS]);
    }
  });
});
