// The ACME order budget end to end, against a real Pebble (behind the proxy
// that records every order) with the real edge answering HTTP-01: 6 orders
// an hour for the deployment, 3 for each application. An application that
// creates and deletes domains at full speed uses its own 3 and no more, and
// another application's new domain gets its certificate meanwhile. When the
// hour's budget is short, a renewal due takes its slot before first
// certificates, and the first certificate left over waits for the next hour
// with its check pending, saying so; what any checker replica is answered
// keeps the slots of renewals due from first certificates. The issuer's clock
// jumps to the start of an hour instead of waiting for one.
import { randomUUID } from 'node:crypto';
import { AcmeIssuer, AcmeOrderBudget, applicationOrdersKey, DEPLOYMENT_ORDERS_KEY } from '@cds/checker';
import { ACME_BUDGET_WAIT_PREFIX, ACME_BUDGET_WINDOW_SECONDS, type AcmeBudgetScope } from '@cds/core';
import type { CertificateRow } from '@cds/data';
import { checkerMetrics } from '@cds/metrics';
import type { TestApi } from '../../support/api-harness';
import { eventually } from '../../support/eventually';
import { TestClock } from '../../support/test-clock';
import { orderNames, type AcmeProxy } from './acme-proxy';
import { startAcmeStack, type AcmeStack } from './acme-stack';
import type { CheckerDns } from './checker-dns';
import { activateOrigin, check, publishRecords, registerDomain, waitForDomain, type DomainView } from './checker-stack';
import { expiringCertificate } from './expiring-certificate';

const BUDGET = { perHour: 6, perApplicationPerHour: 3 };
/** How long each domain of the flooding application lives before it deletes it. */
const FLOOD_LIFETIME_MS = 1500;
/** Bounds of the flood, whatever happens. */
const FLOOD_MAX_DOMAINS = 2000;
const FLOOD_MAX_MS = 120_000;

let stack: AcmeStack;
let dns: CheckerDns;
let proxy: AcmeProxy;
let api: TestApi;
// The issuer's clock: each test starts a fresh clock hour instead of waiting for one.
const clock = new TestClock();
/** The domain of the application that is not flooding, ready with its certificate after the first test. */
let steadyDomain: (DomainView & { key: string }) | null = null;

beforeAll(async () => {
  stack = await startAcmeStack({
    issuer: ({ api: started, directoryUrl, pebble, dns: server }) => new AcmeIssuer({
      store: started.store, encryptionKey: started.config.dataEncryptionKey, directoryUrl, email: null, caBundle: pebble.caBundle,
      dnsServers: [server.server], now: clock.now, orderBudget: BUDGET,
    }),
  });
  ({ dns, proxy, api } = stack);
});

afterAll(() => stack?.stop());

/** Orders the checkers in this process held back for lack of a slot in `scope` so far. */
const waits = async (scope: AcmeBudgetScope) => (await checkerMetrics().acmeBudgetRefusals.get()).values.find((v) => v.labels.scope === scope)?.value ?? 0;
/** The hostnames of the orders that reached Pebble from index `from` on. */
const orderedFrom = (from: number) => proxy.orders().slice(from).flatMap(orderNames);
// Floor + 1, not ceil: right after startWindow() the clock may stand exactly on the hour.
const nextHour = () => new Date((Math.floor(clock.epochMs() / 3600_000) + 1) * 3600_000).toISOString();
const certificateOf = (hostname: string): Promise<CertificateRow | null> => api.store.run((r) => r.certificates.find(hostname));
const current = (key: string, domain: DomainView) => waitForDomain(api, key, domain.id, () => true);
const waitingMessage = (d: DomainView) => check(d, 'certificate').message ?? '';
/** Runs of the domain's checks started at or after `since` (of the last ten kept). */
const runsSince = async (domainId: string, since: Date) => (await api.store.run((r) => r.domainLookup.recentRuns(domainId))).filter((run) => run.startedAt >= since).length;

/** An application allowed many requests and domains; with an active origin (its domains can become ready) unless `withOrigin` is false. */
async function newApplication(withOrigin = true): Promise<{ slug: string; key: string }> {
  const app = await api.createApplication(undefined, { api_requests_per_minute: 100_000, live_domains: 1000 });
  if (withOrigin) await activateOrigin(api, app.slug, stack.origin.url);
  return app;
}

async function readyToIssue(key: string, hostname: string): Promise<DomainView> {
  const domain = await registerDomain(api, key, hostname);
  await publishRecords(dns, domain);
  return domain;
}

/**
 * An application creating domains (with their DNS records) as fast as the API
 * answers and deleting each one FLOOD_LIFETIME_MS later; stop() deletes the
 * ones left.
 */
function flood(app: { key: string }, zone: string): { created: DomainView[]; stop(): Promise<void> } {
  const created: DomainView[] = [];
  const live: Array<{ id: string; at: number }> = [];
  let stopping = false;
  const remove = async (id: string) => {
    const answer = await api.request('DELETE', `/v1/domains/${id}`, { token: app.key });
    if (answer.status !== 202) throw new Error(`delete ${id}: ${answer.status} ${answer.text}`);
  };
  const running = (async () => {
    const until = Date.now() + FLOOD_MAX_MS;
    for (let i = 0; !stopping && i < FLOOD_MAX_DOMAINS && Date.now() < until; i++) {
      const domain = await readyToIssue(app.key, `d${i}.${zone}`);
      created.push(domain);
      live.push({ id: domain.id, at: Date.now() });
      while (live.length > 0 && Date.now() - (live[0] as { at: number }).at > FLOOD_LIFETIME_MS) await remove((live.shift() as { id: string }).id);
    }
    for (const { id } of live.splice(0)) await remove(id);
  })();
  return {
    created,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
}

test("an application creating and deleting domains at full speed uses its own 3 orders, and another application's domain gets its certificate meanwhile", async () => {
  clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  const ordersBefore = proxy.orders().length;
  const zone = `flood-${process.pid}.com`;
  const flooded = () => orderedFrom(ordersBefore).filter((hostname) => hostname.endsWith(`.${zone}`));
  const steady = await newApplication();
  const flooder = await newApplication(false);
  const waitsBefore = await waits('application');

  const flooding = flood(flooder, zone);
  try {
    await eventually('the flooding application to use its 3 orders and wait for more', async () => flooded().length >= 3 && (await waits('application')) > waitsBefore, {
      timeoutMs: 60_000, explain: () => `orders: ${JSON.stringify(orderedFrom(ordersBefore))}; domains created: ${flooding.created.length}`,
    });
    /** The flood's domains from here on are created with its budget spent. */
    const spentAt = flooding.created.length;

    // While the flood goes on, the other application's new domain gets its certificate.
    const registeredAt = Date.now();
    const domain = await readyToIssue(steady.key, `shop.steady-${process.pid}.com`);
    const ready = await waitForDomain(api, steady.key, domain.id, (d) => d.status === 'ready', 60_000);
    expect(Date.now() - registeredAt).toBeLessThan(30_000);
    expect(check(ready, 'certificate')).toMatchObject({ status: 'passing', error_code: null, message: null });
    expect((await certificateOf(domain.hostname))?.issuer).toBe('acme');
    steadyDomain = { ...ready, key: steady.key };

    // The flood's later domains wait for their application's budget, their certificate check pending and saying so.
    // Looked for from the first created with the budget spent: the certificate lane, spaced out while checks run,
    // lags a flood as fast as the API answers by more than its newest few (on Node.js 24, by a hundred or more).
    const waiting = await eventually("a later domain of the flood to wait for its application's budget", async () => {
      for (const later of flooding.created.slice(spentAt)) {
        const seen = await current(flooder.key, later);
        if (waitingMessage(seen).startsWith(ACME_BUDGET_WAIT_PREFIX)) return seen;
      }
      return null;
    }, { timeoutMs: 20_000 });
    expect(check(waiting, 'certificate')).toMatchObject({
      status: 'pending', error_code: null, message: `The certificate waits for ACME order budget: 3 orders this hour of this application's 3; the next hour starts at ${nextHour()}.`,
    });
  } finally {
    await flooding.stop();
  }
  expect(flooding.created.length).toBeGreaterThan(10);
  // The flood got its 3 orders and no more; the other application its 1; the deployment's 6 were never reached.
  expect(flooded()).toHaveLength(3);
  expect(orderedFrom(ordersBefore)).toHaveLength(4);
});

test('when the budget is short, a renewal due takes its slot before first certificates; the one left over waits for the next hour, saying so', async () => {
  const renewing = steadyDomain;
  if (!renewing) throw new Error('the first test left no ready domain to renew');
  // This hour's budget is spent.
  clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  await api.store.run((r) => r.rateCounters.hit(DEPLOYMENT_ORDERS_KEY, ACME_BUDGET_WINDOW_SECONDS, clock.now(), { amount: BUDGET.perHour }));
  const spent = `The certificate waits for ACME order budget: 6 orders this hour of the deployment's 6; the next hour starts at ${nextHour()}.`;

  // Six first certificates of two applications, three each (their own caps allow all six), wait.
  const firsts: Array<{ key: string; domain: DomainView }> = [];
  for (const [n, app] of [await newApplication(), await newApplication()].entries()) {
    for (let i = 0; i < 3; i++) firsts.push({ key: app.key, domain: await readyToIssue(app.key, `new${i}.first-${n}-${process.pid}.com`) });
  }
  for (const { key, domain } of firsts) {
    const waiting = await waitForDomain(api, key, domain.id, (d) => waitingMessage(d) === spent, 30_000);
    expect(check(waiting, 'certificate')).toMatchObject({ status: 'pending', error_code: null });
    expect(waiting.status).toBe('pending_dns');
  }

  // A certificate that expires in 10 days: its renewal is due, and waits too. The domain stays ready meanwhile.
  const expiring = await expiringCertificate(renewing, 10, api.config.dataEncryptionKey);
  await api.store.run((r) => r.certificates.save(expiring));
  const ordersBefore = proxy.orders().length;
  const saved = new Date();
  // Three checks of the domain with its renewal due, the budget spent: none may order.
  await eventually('three checks of the domain with its renewal due', async () => (await runsSince(renewing.id, saved)) >= 3, { timeoutMs: 30_000 });
  expect((await certificateOf(renewing.hostname))?.pemChain).toBe(expiring.pemChain);
  expect(orderedFrom(ordersBefore)).toEqual([]);
  const meanwhile = await current(renewing.key, renewing);
  expect(meanwhile.status).toBe('ready');
  expect(check(meanwhile, 'certificate')).toMatchObject({ status: 'passing', error_code: null, message: null });

  // The next hour: 6 slots for 7 orders. The renewal gets one; five first certificates get the others.
  clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  const issued = async () => (await Promise.all(firsts.map(async ({ key, domain }) => check(await current(key, domain), 'certificate').status === 'passing'))).filter(Boolean).length;
  await eventually('the renewal and five first certificates', async () => (await certificateOf(renewing.hostname))?.pemChain !== expiring.pemChain && (await issued()) === 5, {
    timeoutMs: 120_000, explain: async () => `orders: ${JSON.stringify(orderedFrom(ordersBefore))}; first certificates issued: ${await issued()}`,
  });
  const served = new Date();
  // Three more checks of every first certificate, the one left over among them: none may order.
  await eventually('three more checks of each first certificate', async () => (await Promise.all(firsts.map(({ domain }) => runsSince(domain.id, served)))).every((runs) => runs >= 3), {
    timeoutMs: 30_000,
  });
  expect(await issued()).toBe(5);
  const ordered = orderedFrom(ordersBefore);
  expect(ordered).toHaveLength(6);
  expect(ordered).toContain(renewing.hostname);

  // The first certificate left over waits for the next hour, saying so.
  const left = await Promise.all(firsts.map(({ key, domain }) => current(key, domain)));
  const waiting = left.filter((d) => check(d, 'certificate').status !== 'passing');
  expect(waiting).toHaveLength(1);
  expect(check(waiting[0] as DomainView, 'certificate')).toMatchObject({
    status: 'pending', error_code: null, message: `The certificate waits for ACME order budget: 6 orders this hour of the deployment's 6; the next hour starts at ${nextHour()}.`,
  });
  const renewed = await current(renewing.key, renewing);
  expect(renewed.status).toBe('ready');
  expect(check(renewed, 'certificate')).toMatchObject({ status: 'passing', error_code: null });
});

test("what every checker is answered: the slots renewals due can still use this hour are kept from first certificates, the deployment's and their application's", async () => {
  const renewing = steadyDomain;
  if (!renewing) throw new Error('the first test left no ready domain to renew');
  // No checker takes slots from here on: the budget below answers as it would any checker replica.
  await stack.checker.stop();
  const expiring = await expiringCertificate(renewing, 10, api.config.dataEncryptionKey);
  await api.store.run((r) => r.certificates.save(expiring));
  clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  const due = await api.store.run((r) => r.certificates.renewalsDue(clock.now()));
  expect(due).toEqual([{ applicationId: expect.any(String), due: 1 }]);
  const renewingApp = (due[0] as { applicationId: string }).applicationId;

  const budget = new AcmeOrderBudget(api.store, BUDGET, clock.now);
  await api.store.run(async (r) => {
    await r.rateCounters.hit(DEPLOYMENT_ORDERS_KEY, ACME_BUDGET_WINDOW_SECONDS, clock.now(), { amount: 4 });
    await r.rateCounters.hit(applicationOrdersKey(renewingApp), ACME_BUDGET_WINDOW_SECONDS, clock.now(), { amount: 2 });
  });
  // 4 of the deployment's 6 used and 1 kept for the renewal: one first certificate of another application goes, the next waits.
  await budget.reserve(randomUUID(), 'first');
  await expect(budget.reserve(randomUUID(), 'first')).rejects.toMatchObject({
    refusal: { scope: 'deployment', ordered: 5, limit: 6, heldForRenewals: 1 },
    message: `The certificate waits for ACME order budget: 5 orders this hour of the deployment's 6, 1 kept for renewals; the next hour starts at ${nextHour()}.`,
  });
  // The renewing application used 2 of its 3: its own first certificate leaves the third to its renewal.
  await expect(budget.reserve(renewingApp, 'first')).rejects.toMatchObject({ refusal: { scope: 'application', ordered: 2, limit: 3, heldForRenewals: 1 } });
  // The renewal takes the last slot of both.
  await budget.reserve(renewingApp, 'renewal');
  const counts = await api.store.run((r) => r.rateCounters.peekMany([DEPLOYMENT_ORDERS_KEY, applicationOrdersKey(renewingApp)], ACME_BUDGET_WINDOW_SECONDS, clock.now()));
  expect([...counts.values()]).toEqual([6, 3]);
});
