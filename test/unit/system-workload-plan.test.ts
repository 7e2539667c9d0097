import { DEFAULT_WORKLOAD, EXPECTED_CHECKS, workloadPlan } from '../system/workload-plan';

describe('system workload plan', () => {
  const plan = workloadPlan(2024);

  it('replays from its seed', () => {
    expect(workloadPlan(2024)).toEqual(plan);
    expect(workloadPlan(2025)).not.toEqual(plan);
  });

  it('has 300 domains over 3 applications, 270 published correctly and 30 wrongly in each way', () => {
    expect(plan).toHaveLength(300);
    expect(new Set(plan.map((d) => d.hostname)).size).toBe(300);
    expect(new Set(plan.map((d) => d.reference)).size).toBe(300);
    for (const app of [0, 1, 2]) expect(plan.filter((d) => d.app === app)).toHaveLength(100);
    expect(plan.filter((d) => d.dns === 'correct')).toHaveLength(270);
    const wrong = plan.filter((d) => d.dns !== 'correct');
    expect(wrong).toHaveLength(30);
    for (const kind of Object.keys(EXPECTED_CHECKS)) expect(wrong.filter((d) => d.dns === kind).length).toBeGreaterThanOrEqual(7);
  });

  it('creates over two minutes through both replicas, some with a key and some of those twice', () => {
    expect(Math.max(...plan.map((d) => d.createAtMs))).toBeLessThan(DEFAULT_WORKLOAD.createOverMs);
    expect(plan.map((d) => d.createAtMs)).toEqual([...plan.map((d) => d.createAtMs)].sort((a, b) => a - b));
    expect(plan.filter((d) => d.api === 0).length).toBeGreaterThan(100);
    expect(plan.filter((d) => d.api === 1).length).toBeGreaterThan(100);
    expect(plan.filter((d) => d.idempotency === 'none').length).toBeGreaterThan(100);
    expect(plan.filter((d) => d.idempotency === 'key').length).toBeGreaterThan(50);
    expect(plan.filter((d) => d.idempotency === 'key-twice').length).toBeGreaterThan(30);
  });

  it('deletes a third of the domains near the end, after every create', () => {
    const deleted = plan.filter((d) => d.deleteAtMs !== null);
    expect(deleted).toHaveLength(100);
    for (const d of deleted) {
      expect(d.deleteAtMs).toBeGreaterThanOrEqual(DEFAULT_WORKLOAD.deleteFromMs);
      expect(d.deleteAtMs).toBeLessThanOrEqual(DEFAULT_WORKLOAD.deleteFromMs + DEFAULT_WORKLOAD.deleteOverMs);
    }
    // Both kinds are deleted: ready ones and pending ones.
    expect(deleted.some((d) => d.dns === 'correct')).toBe(true);
  });

  it('refuses impossible counts', () => {
    expect(() => workloadPlan(1, { ...DEFAULT_WORKLOAD, domains: 10 })).toThrow(/more wrong or deleted/);
  });
});
