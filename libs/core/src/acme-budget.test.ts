import { ACME_BUDGET_WAIT_PREFIX, acmeBudgetWaitMessage, orderCaps, type ApplicationRenewals } from './acme-budget';

const limits = { perHour: 6, perApplicationPerHour: 3 };
const app = (applicationId: string, due: number, ordered: number): ApplicationRenewals => ({ applicationId, due, ordered });

describe('orderCaps', () => {
  test('a renewal may use the whole budget of both scopes, whatever else is due', () => {
    expect(orderCaps(limits, 'renewal', 'a', [app('a', 5, 0), app('b', 2, 0)])).toEqual({
      application: 3, deployment: 6, heldForRenewals: { application: 0, deployment: 0 },
    });
  });

  test('a first certificate with no renewal due may use the whole budget', () => {
    expect(orderCaps(limits, 'first', 'a', [])).toEqual({ application: 3, deployment: 6, heldForRenewals: { application: 0, deployment: 0 } });
  });

  test("a first certificate leaves its application's renewals due their slots, and every application's across the deployment", () => {
    expect(orderCaps(limits, 'first', 'a', [app('a', 1, 0), app('b', 2, 0)])).toEqual({
      application: 2, deployment: 3, heldForRenewals: { application: 1, deployment: 3 },
    });
    // Another application's renewals hold back deployment slots, not this application's.
    expect(orderCaps(limits, 'first', 'c', [app('a', 1, 0), app('b', 2, 0)])).toMatchObject({ application: 3, deployment: 3 });
  });

  test("renewals that their application's cap stops this hour hold nothing back", () => {
    // b has 10 renewals due but only 3 orders an hour, 2 of them used: one slot is kept, not ten.
    expect(orderCaps(limits, 'first', 'c', [app('b', 10, 2)])).toEqual({
      application: 3, deployment: 5, heldForRenewals: { application: 0, deployment: 1 },
    });
    expect(orderCaps(limits, 'first', 'b', [app('b', 10, 3)])).toEqual({
      application: 3, deployment: 6, heldForRenewals: { application: 0, deployment: 0 },
    });
  });

  test('never below zero when renewals due exceed the budget', () => {
    const many = Array.from({ length: 5 }, (_v, i) => app(`r${i}`, 3, 0));
    expect(orderCaps(limits, 'first', 'r0', many)).toEqual({ application: 0, deployment: 0, heldForRenewals: { application: 3, deployment: 15 } });
  });
});

describe('acmeBudgetWaitMessage', () => {
  const resetAt = new Date('2026-03-01T11:00:00.000Z');

  test("names the orders this hour, the scope's cap and when the hour ends", () => {
    expect(acmeBudgetWaitMessage({ scope: 'application', ordered: 3, limit: 3, heldForRenewals: 0, resetAt }))
      .toBe("The certificate waits for ACME order budget: 3 orders this hour of this application's 3; the next hour starts at 2026-03-01T11:00:00.000Z.");
    expect(acmeBudgetWaitMessage({ scope: 'deployment', ordered: 100, limit: 100, heldForRenewals: 0, resetAt }))
      .toBe("The certificate waits for ACME order budget: 100 orders this hour of the deployment's 100; the next hour starts at 2026-03-01T11:00:00.000Z.");
  });

  test('says how many slots are kept for renewals, and one order in the singular', () => {
    const message = acmeBudgetWaitMessage({ scope: 'deployment', ordered: 1, limit: 2, heldForRenewals: 1, resetAt });
    expect(message).toBe("The certificate waits for ACME order budget: 1 order this hour of the deployment's 2, 1 kept for renewals; the next hour starts at 2026-03-01T11:00:00.000Z.");
    expect(message.startsWith(ACME_BUDGET_WAIT_PREFIX)).toBe(true);
  });
});
