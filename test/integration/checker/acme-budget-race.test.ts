// The ACME order budget in the database, without a CA: two checkers (two
// connection pools on PostgreSQL; SQLite serializes one file) reserving at
// once never take more slots than the budget has, and a slot the deployment
// refuses is not kept by the application.
import { randomUUID } from 'node:crypto';
import { AcmeBudgetWait, AcmeOrderBudget, applicationOrdersKey, DEPLOYMENT_ORDERS_KEY } from '@cds/checker';
import { ACME_BUDGET_WINDOW_SECONDS, type AcmeBudgetScope } from '@cds/core';
import { createDataStore, type DataStore } from '@cds/data';
import { startTestApi, type TestApi } from '../../support/api-harness';
import { TestClock } from '../../support/test-clock';

let api: TestApi;
let second: DataStore;
const clock = new TestClock();

beforeAll(async () => {
  api = await startTestApi();
  second = api.store.kind === 'postgres' ? await createDataStore({ url: api.config.databaseUrl }) : api.store;
});

afterAll(async () => {
  if (second && second !== api.store) await second.close();
  await api?.close();
});

/** One reservation: 'taken', or the scope that had no slot left. */
const attempt = (budget: AcmeOrderBudget, applicationId: string) => budget.reserve(applicationId, 'first').then(
  (): 'taken' | AcmeBudgetScope => 'taken',
  (err: unknown) => {
    if (err instanceof AcmeBudgetWait) return err.refusal.scope;
    throw err;
  },
);

const counts = (applicationIds: string[]) => api.store.run((r) => r.rateCounters.peekMany(
  [DEPLOYMENT_ORDERS_KEY, ...applicationIds.map(applicationOrdersKey)], ACME_BUDGET_WINDOW_SECONDS, clock.now(),
));

test('two checkers reserving at once take exactly the budget, and the applications keep only the slots the deployment gave', async () => {
  clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  const limits = { perHour: 5, perApplicationPerHour: 3 };
  const checkers = [new AcmeOrderBudget(api.store, limits, clock.now), new AcmeOrderBudget(second, limits, clock.now)];
  const apps = [randomUUID(), randomUUID()];
  // 24 orders at once, each application's split between the two checkers.
  const results = await Promise.all(Array.from({ length: 24 }, (_v, i) => attempt(checkers[i % 2] as AcmeOrderBudget, apps[(i >> 1) % 2] as string)));

  expect(results.filter((r) => r === 'taken')).toHaveLength(5);
  expect(results.filter((r) => r !== 'taken').sort()).toEqual(expect.arrayContaining(['application', 'deployment']));
  const seen = await counts(apps);
  expect(seen.get(DEPLOYMENT_ORDERS_KEY)).toBe(5);
  const perApp = apps.map((id) => seen.get(applicationOrdersKey(id)) ?? 0);
  // One application took its 3; the other got the 2 the deployment had left, and kept no refused slot.
  expect(perApp.sort()).toEqual([2, 3]);

  // The next hour has the whole budget again.
  clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  expect(await attempt(checkers[1] as AcmeOrderBudget, apps[0] as string)).toBe('taken');
  const fresh = await counts(apps);
  expect([fresh.get(DEPLOYMENT_ORDERS_KEY), fresh.get(applicationOrdersKey(apps[0] as string)), fresh.get(applicationOrdersKey(apps[1] as string))]).toEqual([1, 1, 0]);
});

test('a refusal names the scope, its count this hour and the end of the hour', async () => {
  const start = clock.startWindow(ACME_BUDGET_WINDOW_SECONDS);
  const budget = new AcmeOrderBudget(second, { perHour: 2, perApplicationPerHour: 1 }, clock.now);
  const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
  await budget.reserve(a, 'first');
  const nextHour = new Date(start.getTime() + ACME_BUDGET_WINDOW_SECONDS * 1000);
  await expect(budget.reserve(a, 'renewal')).rejects.toMatchObject({ refusal: { scope: 'application', ordered: 1, limit: 1, heldForRenewals: 0, resetAt: nextHour } });
  await budget.reserve(b, 'first');
  await expect(budget.reserve(c, 'first')).rejects.toMatchObject({
    refusal: { scope: 'deployment', ordered: 2, limit: 2, resetAt: nextHour },
    message: `The certificate waits for ACME order budget: 2 orders this hour of the deployment's 2; the next hour starts at ${nextHour.toISOString()}.`,
  });
});
