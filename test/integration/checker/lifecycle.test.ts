// pending_dns -> ready -> attention_required -> ready (recovered) -> deleted,
// with exactly those events in the outbox, in order, each with the full Domain
// resource as it was, and the edge fan-out beside them.
import { ROUTING_KEYS } from '@cds/core';
import type { OutboxRow } from '@cds/data';
import { eventually } from '../../support/eventually';
import {
  activateOrigin, check, publishRecords, registerDomain, startCheckerStack, startOrigin, waitForDomain,
  type CheckerStack, type DomainView, type TestOrigin,
} from './checker-stack';

let stack: CheckerStack;
let origin: TestOrigin;

beforeAll(async () => {
  stack = await startCheckerStack();
  origin = await startOrigin();
});

afterAll(async () => {
  await origin?.close();
  await stack?.close();
});

const ofDomain = (id: string) => (row: OutboxRow) => (row.payload as { domain_id?: string; data?: { domain: { id: string } } }).domain_id === id
  || (row.payload as { data?: { domain: { id: string } } }).data?.domain.id === id;

test('a domain goes ready, needs attention, recovers and is deleted, with exactly four events', async () => {
  const { api, dns } = stack;
  const { slug, key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  await activateOrigin(api, slug, origin.url);
  const domain = await registerDomain(api, key, `www.lifecycle-${process.pid}.com`);
  expect(domain.status).toBe('pending_dns');

  await publishRecords(dns, domain, { cname: false });
  const waiting = await waitForDomain(api, key, domain.id, (d) => check(d, 'ownership').status === 'passing');
  expect(waiting.status).toBe('pending_dns');
  expect(check(waiting, 'routing').error_code).toBe('cname_not_found');

  await publishRecords(dns, domain);
  const ready = await waitForDomain(api, key, domain.id, (d) => d.status === 'ready');
  expect(ready.checks.map((c) => c.status)).toEqual(['passing', 'passing', 'passing', 'passing']);

  const txt = domain.dns_records.find((r) => r.type === 'TXT');
  await dns.clearTxt(txt?.name ?? '');
  const attention = await waitForDomain(api, key, domain.id, (d) => d.status === 'attention_required');
  expect(check(attention, 'ownership').error_code).toBe('txt_record_not_found');

  await publishRecords(dns, domain);
  const recovered = await waitForDomain(api, key, domain.id, (d) => d.status === 'ready');

  // A domain that stays pending_dns: the scheduler checks it every period, which shows the periods passing.
  const witness = await registerDomain(api, key, `witness.lifecycle-${process.pid}.com`);
  const deleted = await api.request<DomainView>('DELETE', `/v1/domains/${domain.id}`, { token: key });
  expect(deleted.status).toBe(202);
  // The scheduler leaves deleted domains alone and removes their certificate.
  await eventually('the deleted domain\'s certificate removed', async () => (await api.store.run((r) => r.certificates.find(domain.hostname))) === null, { timeoutMs: 10_000 });
  const afterDelete = await api.request<DomainView>('GET', `/v1/domains/${domain.id}?include_deleted=true`, { token: key });
  let witnessed = new Date().toISOString();
  for (let period = 0; period < 3; period++) {
    const checked = await waitForDomain(api, key, witness.id, (d) => (check(d, 'ownership').observed_at ?? '') > witnessed);
    witnessed = check(checked, 'ownership').observed_at as string;
  }
  const later = await api.request<DomainView>('GET', `/v1/domains/${domain.id}?include_deleted=true`, { token: key });
  expect(later.body).toEqual(afterDelete.body);

  const events = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.eventEmitted))).filter(ofDomain(domain.id));
  expect(events.map((e) => (e.payload as { type: string }).type)).toEqual(['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted']);
  const resources = events.map((e) => (e.payload as { data: { domain: DomainView } }).data.domain);
  expect(resources.map((d) => d.status)).toEqual(['ready', 'attention_required', 'ready', 'deleting']);
  for (const [index, resource] of resources.entries()) {
    expect(Object.keys(resource).sort()).toEqual(Object.keys(ready).sort());
    if (index < 3) expect(resource.dns_records).toEqual(domain.dns_records);
  }
  expect(resources[0]?.checks.map((c) => c.status)).toEqual(['passing', 'passing', 'passing', 'passing']);
  expect(check(resources[1] as DomainView, 'ownership')).toMatchObject({ status: 'failing', error_code: 'txt_record_not_found' });
  expect(resources[2]).toMatchObject({ status: 'ready', checks: recovered.checks.map((c) => ({ type: c.type, status: 'passing' })) });
  for (const event of events) {
    const payload = event.payload as { application_id: string; created_at: string; event_id: string };
    expect(payload.created_at).toMatch(/\+00:00$/);
    expect(payload.event_id).toMatch(/^[0-9a-f-]{36}$/);
  }
  // The ready event shows the domain exactly as GET showed it once ready (checks observed in that run).
  expect(resources[0]?.status).toBe(ready.status);

  const changes = (await api.store.run((r) => r.outbox.all(ROUTING_KEYS.domainChanged))).filter(ofDomain(domain.id)).map((e) => (e.payload as { change: string }).change);
  expect(changes.filter((c) => c === 'status')).toHaveLength(3);
  expect(changes).toContain('certificate');
  expect(changes[0]).toBe('created');
  expect(changes[changes.length - 1]).toBe('deleted');
});

test('a deleted domain\'s ACME challenges are removed in the background within seconds; a live domain\'s stay', async () => {
  const { api } = stack;
  const { key } = await api.createApplication(undefined, { api_requests_per_minute: 100_000 });
  const gone = await registerDomain(api, key, `gone.challenges-${process.pid}.com`);
  const live = await registerDomain(api, key, `live.challenges-${process.pid}.com`);
  expect((await api.request('DELETE', `/v1/domains/${gone.id}`, { token: key })).status).toBe(202);
  const createdAt = new Date();
  await api.store.run(async (r) => {
    await r.acmeChallenges.save({ token: `gone-${process.pid}`, hostname: gone.hostname, keyAuthorization: 'gone.k', createdAt });
    await r.acmeChallenges.save({ token: `live-${process.pid}`, hostname: live.hostname, keyAuthorization: 'live.k', createdAt });
  });
  // The clean-up runs every few seconds; both challenges were just created, far from the one-hour cut-off.
  await eventually('the deleted domain\'s challenge removed', async () => (await api.store.run((r) => r.acmeChallenges.find(`gone-${process.pid}`))) === null, { timeoutMs: 15_000 });
  expect(await api.store.run((r) => r.acmeChallenges.find(`live-${process.pid}`))).toMatchObject({ hostname: live.hostname, keyAuthorization: 'live.k' });
});
