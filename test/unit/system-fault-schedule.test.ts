import { DEFAULT_FAULT_OPTIONS, describeSchedule, faultSchedule, faultsEndMs, type FaultScheduleOptions } from '../system/fault-schedule';
import { seedFrom, seededRandom } from '../system/seeded-random';

const PROCESSES = ['api-1', 'api-2', 'checker-1', 'checker-2', 'webhook-dispatcher-1', 'webhook-dispatcher-2', 'edge-proxy-1', 'edge-proxy-2'];
const OPTIONS: FaultScheduleOptions = { ...DEFAULT_FAULT_OPTIONS, processes: PROCESSES, receivers: ['tenant-0', 'tenant-1', 'tenant-2'] };

describe('seeded random', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed).next);
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const x of draw(7)) expect(x >= 0 && x < 1).toBe(true);
  });

  it('shuffles into a permutation and picks within range', () => {
    const r = seededRandom(1);
    const items = Array.from({ length: 50 }, (_, i) => i);
    expect([...r.shuffle(items)].sort((a, b) => a - b)).toEqual(items);
    for (let i = 0; i < 100; i++) expect(items).toContain(r.pick(items));
    for (let i = 0; i < 100; i++) expect([3, 4, 5]).toContain(r.int(3, 5));
  });

  it('reads SYSTEM_SEED, or draws one when it is unset', () => {
    expect(seedFrom('12345')).toBe(12345);
    expect(seedFrom(' 7 ')).toBe(7);
    expect(seedFrom(undefined, () => 99)).toBe(99);
    expect(seedFrom('', () => 5)).toBe(5);
    expect(() => seedFrom('abc')).toThrow(/SYSTEM_SEED/);
    expect(() => seedFrom('-1')).toThrow(/SYSTEM_SEED/);
    expect(() => seedFrom(String(2 ** 32))).toThrow(/SYSTEM_SEED/);
  });
});

describe('fault schedule', () => {
  it('replays from its seed', () => {
    expect(faultSchedule(1234, OPTIONS)).toEqual(faultSchedule(1234, OPTIONS));
    expect(faultSchedule(1234, OPTIONS)).not.toEqual(faultSchedule(1235, OPTIONS));
  });

  it.each([1, 2, 3, 99, 2 ** 31, 4294967295])('seed %d: a kill every 15 s, one broker stop, one database restart, one failing receiver', (seed) => {
    const faults = faultSchedule(seed, OPTIONS);
    const kills = faults.filter((f) => f.kind === 'kill');
    expect(kills.map((k) => k.atMs)).toEqual([15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180, 195].map((s) => s * 1000));
    for (const k of kills) {
      expect(PROCESSES).toContain(k.process);
      expect(k.restartAfterMs).toBe(2000);
    }
    const rabbit = faults.filter((f) => f.kind === 'rabbitmq-stop');
    const postgres = faults.filter((f) => f.kind === 'postgres-restart');
    const receiver = faults.filter((f) => f.kind === 'receiver-500');
    expect([rabbit.length, postgres.length, receiver.length]).toEqual([1, 1, 1]);
    const [r, p, v] = [rabbit[0], postgres[0], receiver[0]];
    if (r?.kind !== 'rabbitmq-stop' || p?.kind !== 'postgres-restart' || v?.kind !== 'receiver-500') throw new Error('kinds');
    expect(r.atMs).toBeGreaterThanOrEqual(30_000);
    expect(r.atMs).toBeLessThanOrEqual(100_000);
    expect(r.downMs).toBe(20_000);
    expect(p.atMs).toBeGreaterThanOrEqual(40_000);
    expect(p.atMs).toBeLessThanOrEqual(150_000);
    // Clear of the broker outage by the separation on both sides.
    expect(p.atMs < r.atMs - 15_000 || p.atMs > r.atMs + 20_000 + 15_000).toBe(true);
    expect(['tenant-0', 'tenant-1', 'tenant-2']).toContain(v.receiver);
    expect(v.durationMs).toBe(30_000);
    // Sorted by time.
    expect(faults.map((f) => f.atMs)).toEqual([...faults.map((f) => f.atMs)].sort((a, b) => a - b));
  });

  it('hits different processes over many seeds, each of them sometimes', () => {
    const hit = new Set<string>();
    for (let seed = 0; seed < 50; seed++) for (const f of faultSchedule(seed, OPTIONS)) if (f.kind === 'kill') hit.add(f.process);
    expect([...hit].sort()).toEqual([...PROCESSES].sort());
  });

  it('finds a database restart time clear of the broker outage even in a narrow window', () => {
    const narrow = { ...OPTIONS, rabbit: { earliestMs: 50_000, latestMs: 50_000, downMs: 20_000 }, postgres: { earliestMs: 40_000, latestMs: 100_000 } };
    for (let seed = 0; seed < 20; seed++) {
      const p = faultSchedule(seed, narrow).find((f) => f.kind === 'postgres-restart');
      expect(p && (p.atMs < 35_000 || p.atMs > 85_000)).toBe(true);
    }
    const impossible = { ...narrow, postgres: { earliestMs: 40_000, latestMs: 80_000 } };
    expect(() => faultSchedule(1, impossible)).toThrow(/clear of the RabbitMQ outage/);
  });

  it('says when the last fault is over and prints one line per fault', () => {
    const faults = faultSchedule(5, OPTIONS);
    expect(faultsEndMs(faults)).toBeGreaterThanOrEqual(197_000);
    const lines = describeSchedule(faults);
    expect(lines).toHaveLength(faults.length);
    expect(lines.filter((l) => l.includes('kill -9'))).toHaveLength(13);
    expect(lines.some((l) => /RabbitMQ node stopped for 20 s/.test(l))).toBe(true);
    expect(lines.some((l) => /pg_ctl restart -m immediate/.test(l))).toBe(true);
    expect(lines.some((l) => /answers 500 for 30 s/.test(l))).toBe(true);
  });
});
