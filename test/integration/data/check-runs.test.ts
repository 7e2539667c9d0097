import { ROUTING_KEYS } from '@cds/core';
import type { ApplicationRow, CheckRunRecord, DomainRow } from '@cds/data';
import { aDomain, anApplication, at, checksFor, openMigratedStore, type MigratedStore } from './data-fixtures';

describe('check runs repository', () => {
  let ctx: MigratedStore;
  let app: ApplicationRow;

  beforeAll(async () => {
    ctx = await openMigratedStore();
    app = anApplication();
    await ctx.store.run((r) => r.applications.insert(app));
  });
  afterAll(() => ctx.close());

  async function domain(overrides: Partial<DomainRow> = {}): Promise<DomainRow> {
    const row = aDomain(app.id, overrides);
    await ctx.store.run((r) => r.domains.insert(row, checksFor(row.id)));
    return row;
  }

  function record(row: DomainRow, overrides: Partial<CheckRunRecord> = {}): CheckRunRecord {
    return {
      domainId: row.id, startedAt: at(100), status: 'pending_dns', nextCheckAt: at(60_000), updatedAt: at(200), counted: true, leaseUntil: null,
      checks: checksFor(row.id).map((c) => ({ ...c, status: 'failing', errorCode: 'txt_record_not_found', message: 'none', observedAt: at(150), nextCheckAt: at(60_000) })),
      certificate: null, messages: [],
      run: { slot: 0, startedAt: at(100), durationMs: 50, trigger: 'created', statusBefore: 'pending_dns', statusAfter: 'pending_dns', checks: [] }, ...overrides,
    };
  }

  it('leases due live domains with their rows, oldest due first, and never one another checker holds', async () => {
    const later = await domain({ nextCheckAt: at(50) });
    const sooner = await domain({ nextCheckAt: at(10), metadata: { k: 'v' } });
    const notDue = await domain({ nextCheckAt: at(1_000_000) });
    const gone = await domain({ nextCheckAt: at(1) });
    await ctx.store.run((r) => r.domains.markDeleted(app.id, gone.id, at(2)));

    const leased = await ctx.store.run((r) => r.checkRuns.claimDue(at(100), 10, 'a', at(30_100)));
    const mine = leased.filter((l) => [later.id, sooner.id, notDue.id, gone.id].includes(l.domain.id));
    expect(mine.map((l) => l.domain)).toEqual([sooner, later]);
    expect(mine.map((l) => l.checkCount)).toEqual([0, 0]);
    expect(await ctx.store.run((r) => r.checkRuns.claimDue(at(200), 10, 'b', at(30_200)))).toEqual([]);
    expect(await ctx.store.run((r) => r.checkRuns.claim(sooner.id, at(200), 'b', at(30_200)))).toBeNull();
    // A lease that ran out (its checker died) is taken over.
    expect((await ctx.store.run((r) => r.checkRuns.claim(sooner.id, at(31_000), 'b', at(61_000))))?.domain.id).toBe(sooner.id);
    expect(await ctx.store.run((r) => r.checkRuns.extend([sooner.id, later.id], 'b', at(90_000)))).toEqual([sooner.id]);
    await ctx.store.run((r) => r.checkRuns.release([sooner.id, later.id], 'b'));
    expect((await ctx.store.run((r) => r.checkRuns.claim(sooner.id, at(32_000), 'c', at(62_000))))?.domain.id).toBe(sooner.id);
    await ctx.store.run((r) => r.checkRuns.release([sooner.id, later.id], 'a'));
    await ctx.store.run((r) => r.checkRuns.release([sooner.id], 'c'));
  });

  it('records the runs of domains still leased and live, with their checks, certificates and messages, and drops the others', async () => {
    const [kept, deleted, stolen] = [await domain(), await domain(), await domain()];
    for (const row of [kept, deleted, stolen]) await ctx.store.run((r) => r.checkRuns.claim(row.id, at(100), 'me', at(30_100)));
    await ctx.store.run((r) => r.domains.markDeleted(app.id, deleted.id, at(150)));
    await ctx.store.run((r) => r.checkRuns.release([stolen.id], 'me'));
    await ctx.store.run((r) => r.checkRuns.claim(stolen.id, at(160), 'other', at(30_160)));
    const certificate = { hostname: kept.hostname, domainId: kept.id, issuer: 'internal' as const, pemChain: 'pem', keySealed: 'sealed', notBefore: at(0), notAfter: at(9_000_000), createdAt: at(190) };
    const message = (row: DomainRow) => ({ routingKey: ROUTING_KEYS.domainChanged, payload: { domain_id: row.id, hostname: row.hostname, application_id: app.id, change: 'certificate' } }) as const;

    const written = await ctx.store.transaction((r) => r.checkRuns.record(
      [record(kept, { certificate, messages: [message(kept)] }), record(deleted, { messages: [message(deleted)] }), record(stolen, { messages: [message(stolen)] })],
      'me',
    ));
    expect(written).toEqual([kept.id]);
    expect(await ctx.store.run((r) => r.domains.find(app.id, kept.id, false))).toEqual({ ...kept, nextCheckAt: at(60_000), updatedAt: at(200) });
    expect(await ctx.store.run((r) => r.domains.checksOf([kept.id, deleted.id, stolen.id]))).toEqual([...record(kept).checks, ...checksFor(deleted.id), ...checksFor(stolen.id)]);
    expect(await ctx.store.run((r) => r.certificates.findMany([kept.hostname, deleted.hostname]))).toEqual([certificate]);
    const ids = (await ctx.store.run((r) => r.outbox.all(ROUTING_KEYS.domainChanged))).map((row) => (row.payload as { domain_id: string; change: string }));
    expect(ids).toContainEqual(message(kept).payload);
    expect(ids.filter((p) => p.change === 'certificate').map((p) => p.domain_id)).not.toContain(deleted.id);
    expect(ids.filter((p) => p.change === 'certificate').map((p) => p.domain_id)).not.toContain(stolen.id);
    // The run was counted and its lease ended: another checker may take it at once.
    expect((await ctx.store.run((r) => r.checkRuns.claim(kept.id, at(300), 'next', at(30_300))))?.checkCount).toBe(1);
  });

  it('keeps the lease of a run that goes on, and a sooner next check a recheck set meanwhile', async () => {
    const row = await domain();
    await ctx.store.run((r) => r.checkRuns.claim(row.id, at(100), 'me', at(30_100)));
    // A manual recheck during the run.
    await ctx.store.run((r) => r.domains.update(app.id, row.id, { nextCheckAt: at(120) }));
    await ctx.store.transaction((r) => r.checkRuns.record([record(row, { leaseUntil: at(40_000), nextCheckAt: at(40_000) })], 'me'));
    expect((await ctx.store.run((r) => r.domains.find(app.id, row.id, false)))?.nextCheckAt).toEqual(at(120));
    expect(await ctx.store.run((r) => r.checkRuns.claim(row.id, at(35_000), 'other', at(65_000)))).toBeNull();
    // The last step ends the lease without counting the run twice.
    await ctx.store.transaction((r) => r.checkRuns.record([record(row, { counted: false, startedAt: at(100), nextCheckAt: at(90_000) })], 'me'));
    expect((await ctx.store.run((r) => r.domains.find(app.id, row.id, false)))?.nextCheckAt).toEqual(at(120));
    expect((await ctx.store.run((r) => r.checkRuns.claim(row.id, at(35_000), 'other', at(65_000))))?.checkCount).toBe(1);
  });

  it('keeps each check streak and the runs since the status began, and reads them back with the lease', async () => {
    const row = await domain({ status: 'ready' });
    await ctx.store.run((r) => r.checkRuns.claim(row.id, at(100), 'me', at(30_100)));
    const confirming = checksFor(row.id).map((c) => (c.type === 'origin'
      ? { ...c, status: 'passing' as const, message: 'confirming', observedAt: at(150), nextCheckAt: at(30_000), failedRuns: 2, failingSince: at(90), inconclusive: true }
      : { ...c, status: 'passing' as const, observedAt: at(150) }));
    await ctx.store.transaction((r) => r.checkRuns.record([record(row, { status: 'ready', checks: confirming, nextCheckAt: at(30_000) })], 'me'));
    const leased = await ctx.store.run((r) => r.checkRuns.claim(row.id, at(31_000), 'me', at(61_000)));
    expect(leased?.checks).toEqual(confirming);
    // Same status: one run more since it began.
    expect(leased?.statusRuns).toBe(1);
    await ctx.store.transaction((r) => r.checkRuns.record([record(row, { status: 'attention_required', checks: confirming, startedAt: at(31_000) })], 'me'));
    const entered = await ctx.store.run((r) => r.checkRuns.claim(row.id, at(61_000), 'me', at(91_000)));
    // The run that entered a status is run 0 of it.
    expect(entered?.statusRuns).toBe(0);
    expect(entered?.checkCount).toBe(2);
    await ctx.store.run((r) => r.checkRuns.release([row.id], 'me'));
  });
});
