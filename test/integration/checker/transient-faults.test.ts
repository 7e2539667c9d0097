// DECISIONS §11 against real DNS (challtestsrv), a real origin and the real
// edge: a ready domain rides out a SERVFAIL burst and an origin answering 503
// to its health probe, leaves ready only after CHECK_CONFIRMATIONS failed runs
// of a conclusive failure (and no earlier than CHECK_OUTAGE_GRACE for an
// inconclusive one), and comes back within the first attention step.
import https from 'node:https';
import { ROUTING_KEYS } from '@cds/core';
import type { OutboxRow } from '@cds/data';
import { InternalCa } from '@cds/checker';
import type { Edge } from '@cds/edge-proxy';
import type { TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { freePort, type CheckerDns } from './checker-dns';
import {
  activateOrigin, check, publishRecords, registerDomain, startCheckerStack, startOrigin, startTestEdge, waitForDomain,
  type CheckerStack, type DomainView, type TestOrigin,
} from './checker-stack';

const CONFIRMATIONS = 3;
const GRACE_MS = 15_000;
const FIRST_ATTENTION_STEP_MS = 2000;
const FAULT_MS = 8000;

let stack: CheckerStack;
let dns: CheckerDns;
let api: TestApi;
let edge: Edge;
let origin: TestOrigin;
let caPem: string;
let key: string;

beforeAll(async () => {
  stack = await startCheckerStack({
    CHECK_INTERVAL_LIVE: '1s', CHECK_CONFIRMATIONS: String(CONFIRMATIONS), CHECK_SCHEDULE_CONFIRM: '1s', CHECK_OUTAGE_GRACE: `${GRACE_MS}ms`,
    CHECK_SCHEDULE_ATTENTION: `${FIRST_ATTENTION_STEP_MS}ms,10s`,
  });
  ({ dns, api } = stack);
  edge = await startTestEdge(api, await freePort(), stack.bus);
  caPem = await new InternalCa(api.store, api.config.dataEncryptionKey).certificatePem();
  origin = await startOrigin();
  const app = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  key = app.key;
  await activateOrigin(api, app.slug, origin.url);
}, 60_000);

afterAll(async () => {
  await edge?.close(1000);
  await origin?.close();
  await stack?.close();
});

/** GET https://<hostname>/ through the edge: the status, or 0 when the request failed. */
function throughEdge(hostname: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port: edge.httpsPort, servername: hostname, headers: { host: hostname }, ca: caPem, path: '/' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

async function readyDomain(label: string): Promise<DomainView> {
  const domain = await registerDomain(api, key, `${label}.faults-${process.pid}.com`);
  await publishRecords(dns, domain);
  await waitForDomain(api, key, domain.id, (d) => d.status === 'ready');
  await eventually('the edge serves it', async () => (await throughEdge(domain.hostname)) === 200, { timeoutMs: 10_000 });
  return domain;
}

const txtName = (domain: DomainView) => domain.dns_records.find((r) => r.type === 'TXT')?.name ?? '';

async function eventsOf(domainId: string): Promise<string[]> {
  const rows = await api.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted));
  return rows.map((row: OutboxRow) => row.payload as { type: string; data: { domain: { id: string } } })
    .filter((p) => p.data.domain.id === domainId).map((p) => p.type);
}

async function current(domain: DomainView): Promise<DomainView> {
  return (await api.request<DomainView>('GET', `/v1/domains/${domain.id}`, { token: key })).body;
}

/** Through `ms`: every 250 ms the domain's state and a request through the edge. */
async function watch(domain: DomainView, ms: number): Promise<{ statuses: Set<string>; answers: number[]; messages: string[] }> {
  const seen = { statuses: new Set<string>(), answers: [] as number[], messages: [] as string[] };
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const [state, answer] = await Promise.all([current(domain), throughEdge(domain.hostname)]);
    seen.statuses.add(state.status);
    seen.answers.push(answer);
    for (const c of state.checks) if (c.message?.includes('confirming')) seen.messages.push(c.message);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return seen;
}

test('an 8-second SERVFAIL of the ownership name: the domain stays ready and served on every request, with no event', async () => {
  const domain = await readyDomain('servfail');
  await dns.setServfail(txtName(domain));
  const window = await watch(domain, FAULT_MS);
  await dns.clearServfail(txtName(domain));

  expect(window.statuses).toEqual(new Set(['ready']));
  expect(window.answers.length).toBeGreaterThan(15);
  expect(window.answers.filter((status) => status !== 200)).toEqual([]);
  // The failure was seen, and shown as being confirmed.
  expect(window.messages[0]).toMatch(/^The TXT lookup of _custom-domain-challenge\.servfail\.faults-\d+\.com failed \(SERVFAIL\) at \d\d:\d\d:\d\dZ; confirming before the domain leaves ready \(1 of 3, and failing for 15s since \d\d:\d\d:\d\dZ\)\.$/);
  const after = await waitForDomain(api, key, domain.id, (d) => d.checks.every((c) => c.status === 'passing' && c.message === null));
  expect(after.status).toBe('ready');
  expect(await eventsOf(domain.id)).toEqual(['domain.ready']);
});

test('the origin answering 503 to its health probe for 8 seconds: ready and served throughout, no event', async () => {
  const domain = await readyDomain('origin-blip');
  origin.probeAnswer = 503;
  const window = await watch(domain, FAULT_MS);
  origin.probeAnswer = null;

  expect(window.statuses).toEqual(new Set(['ready']));
  expect(window.answers.filter((status) => status !== 200)).toEqual([]);
  expect(window.messages.some((m) => m.includes('503') && m.includes('confirming before the domain leaves ready'))).toBe(true);
  await waitForDomain(api, key, domain.id, (d) => check(d, 'origin').message === null);
  expect(await eventsOf(domain.id)).toEqual(['domain.ready']);
});

test('a removed TXT record: attention_required after exactly CHECK_CONFIRMATIONS failed runs, one event, 503 at the edge within 5 s; republished, ready within the first attention step', async () => {
  const domain = await readyDomain('removed');
  await dns.clearTxt(txtName(domain));
  const counts: string[] = [];
  const attention = await waitForDomain(api, key, domain.id, (d) => {
    const progress = /\((\d) of 3\)/.exec(check(d, 'ownership').message ?? '')?.[1];
    if (d.status === 'ready' && progress && counts[counts.length - 1] !== progress) counts.push(progress);
    return d.status === 'attention_required';
  }, 30_000);
  const enteredAt = Date.now();
  // Two confirming runs seen as passing, the third confirmed: no count skipped or repeated.
  expect(counts).toEqual(['1', '2']);
  expect(check(attention, 'ownership')).toMatchObject({ status: 'failing', error_code: 'txt_record_not_found' });
  // The kept runs, newest first: exactly CHECK_CONFIRMATIONS saw the record missing, the last of them left ready.
  const runs = await api.store.run((r) => r.domainLookup.recentRuns(domain.id));
  const ownership = runs.map((run) => run.checks.find((c) => c.type === 'ownership')?.errorCode ?? null);
  expect(ownership.slice(0, CONFIRMATIONS + 1)).toEqual([...Array.from({ length: CONFIRMATIONS }, () => 'txt_record_not_found'), null]);
  expect(runs.slice(0, CONFIRMATIONS).map((run) => [run.trigger, run.statusBefore, run.statusAfter])).toEqual([
    ['confirm', 'ready', 'attention_required'], ['confirm', 'ready', 'ready'], ['schedule', 'ready', 'ready'],
  ]);
  await eventually('the edge answers 503', async () => (await throughEdge(domain.hostname)) === 503, { timeoutMs: 5000, intervalMs: 100 });
  expect(Date.now() - enteredAt).toBeLessThan(5000);

  await publishRecords(dns, domain);
  const republishedAt = Date.now();
  await waitForDomain(api, key, domain.id, (d) => d.status === 'ready', 10_000);
  // The first attention step is counted from entering the status; a run takes well under a second here.
  expect(Date.now() - enteredAt).toBeLessThan(FIRST_ATTENTION_STEP_MS + 1500);
  expect(Date.now() - republishedAt).toBeLessThan(FIRST_ATTENTION_STEP_MS + 1500);
  await eventually('the edge serves it again', async () => (await throughEdge(domain.hostname)) === 200, { timeoutMs: 5000 });
  await eventually('the recovered event', async () => (await eventsOf(domain.id)).length === 3, { timeoutMs: 5000 });
  expect(await eventsOf(domain.id)).toEqual(['domain.ready', 'domain.attention_required', 'domain.recovered']);
}, 60_000);

test('a SERVFAIL longer than CHECK_OUTAGE_GRACE takes the domain out, no earlier than the grace', async () => {
  const domain = await readyDomain('long-outage');
  const start = Date.now();
  await dns.setServfail(txtName(domain));
  const attention = await waitForDomain(api, key, domain.id, (d) => d.status === 'attention_required', GRACE_MS + 15_000);
  const tookMs = Date.now() - start;
  expect(tookMs).toBeGreaterThanOrEqual(GRACE_MS);
  expect(tookMs).toBeLessThan(GRACE_MS + 5000);
  expect(check(attention, 'ownership')).toMatchObject({ status: 'failing', error_code: 'txt_record_not_found', message: expect.stringContaining('(SERVFAIL)') });
  expect(await eventsOf(domain.id)).toEqual(['domain.ready', 'domain.attention_required']);

  await dns.clearServfail(txtName(domain));
  await waitForDomain(api, key, domain.id, (d) => d.status === 'ready', 15_000);
}, 60_000);
