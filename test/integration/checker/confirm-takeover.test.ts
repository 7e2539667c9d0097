// DECISIONS §11: a failure being confirmed is counted in the database, not in
// a checker. Two checker processes (split mode, PostgreSQL + RabbitMQ); one is
// killed with SIGKILL while a ready domain's removed TXT record is being
// confirmed. The survivor carries the count on: 1, then 2, then the third run
// takes the domain to attention_required, with exactly three failed runs kept
// and one event.
import { ROUTING_KEYS } from '@cds/core';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';
import { createVhost, deleteVhost, type TestVhost } from '../messaging/rabbit';
import { startCheckerDns, type CheckerDns } from './checker-dns';
import { startCheckerProcess, type CheckerProcess } from './checker-process';
import { activateOrigin, check, EDGE_TARGET, publishRecords, registerDomain, startOrigin, waitForDomain, type TestOrigin } from './checker-stack';

const SETTINGS = {
  CERT_ISSUER: 'internal', CHECK_SCHEDULE_PENDING: '300ms', CHECK_INTERVAL_LIVE: '1s',
  CHECK_CONFIRMATIONS: '3', CHECK_SCHEDULE_CONFIRM: '3s', CHECK_OUTAGE_GRACE: '1h', CHECK_SCHEDULE_ATTENTION: '2s',
};

let db: TestDatabase;
let api: TestApi;
let dns: CheckerDns;
let vhost: TestVhost;
let origin: TestOrigin;
const checkers: CheckerProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase('postgres');
  dns = await startCheckerDns();
  vhost = await createVhost();
  api = await startTestApi({ EDGE_TARGET, DNS_SERVERS: dns.server, ...SETTINGS }, { url: db.url });
  origin = await startOrigin();
});

afterAll(async () => {
  for (const { child } of checkers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await origin?.close();
  await api?.close();
  await db?.drop();
  if (vhost) await deleteVhost(vhost);
  await dns?.stop();
});

async function startChecker(): Promise<CheckerProcess> {
  const entry = await startCheckerProcess(api, db.url, vhost.url, dns.server, SETTINGS);
  checkers.push(entry);
  return entry;
}

test('a checker killed while a failure is being confirmed: the survivor carries the count on, no reset and no double count', async () => {
  const { slug, key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  await activateOrigin(api, slug, origin.url);
  const domain = await registerDomain(api, key, `www.takeover-${process.pid}.com`);
  await publishRecords(dns, domain);
  const [victim, survivor] = [await startChecker(), await startChecker()];
  await waitForDomain(api, key, domain.id, (d) => d.status === 'ready', 30_000);

  await dns.clearTxt(domain.dns_records.find((r) => r.type === 'TXT')?.name ?? '');
  const progress = (message: string | null) => /confirming before the domain leaves ready \((\d) of 3\)/.exec(message ?? '')?.[1] ?? null;
  await waitForDomain(api, key, domain.id, (d) => progress(check(d, 'ownership').message) === '1', 20_000);
  victim.child.kill('SIGKILL');

  const counts: string[] = ['1'];
  const attention = await waitForDomain(api, key, domain.id, (d) => {
    const seen = progress(check(d, 'ownership').message);
    if (d.status === 'ready' && seen && counts[counts.length - 1] !== seen) counts.push(seen);
    if (survivor.child.exitCode !== null) throw new Error(`survivor exited: ${survivor.output}`);
    return d.status === 'attention_required';
  }, 30_000);
  expect(counts).toEqual(['1', '2']);
  expect(check(attention, 'ownership')).toMatchObject({ status: 'failing', error_code: 'txt_record_not_found' });

  const runs = await api.store.run((r) => r.domainLookup.recentRuns(domain.id));
  const failed = runs.map((run) => run.checks.find((c) => c.type === 'ownership')?.status);
  // Newest first: three failed runs, the one before them passed.
  expect(failed.slice(0, 4)).toEqual(['failing', 'failing', 'failing', 'passing']);
  expect(runs[0]).toMatchObject({ statusBefore: 'ready', statusAfter: 'attention_required' });
  expect(runs.slice(1, 3).map((run) => run.statusAfter)).toEqual(['ready', 'ready']);
  await eventually('one attention_required event', async () => {
    const events = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted)))
      .map((row) => row.payload as { type: string; data: { domain: { id: string } } })
      .filter((p) => p.data.domain.id === domain.id).map((p) => p.type);
    return events.length === 2 && events[1] === 'domain.attention_required';
  }, { timeoutMs: 5000 });
}, 90_000);
