import { CHECK_CONFIRMATIONS, CHECK_SETTINGS, confirmationSpanMs, OUTAGE_GRACE_MS } from '../system/check-settings';
import {
  DEFAULT_FAULT_OPTIONS, describeSchedule, faultSchedule, faultsEndMs, servfailHosts, transientFaults,
  type Fault, type FaultScheduleOptions, type OriginFault, type ServfailFault, type TxtRemovedFault,
} from '../system/fault-schedule';
import { seedFrom, seededRandom } from '../system/seeded-random';
import { workloadPlan } from '../system/workload-plan';

const PROCESSES = ['api-1', 'api-2', 'checker-1', 'checker-2', 'webhook-dispatcher-1', 'webhook-dispatcher-2', 'edge-proxy-1', 'edge-proxy-2'];
const APPS = ['tenant-0', 'tenant-1', 'tenant-2'];
/** The domains the runner offers: the default workload's correctly published ones that stay. */
const targetsOf = (seed: number) => workloadPlan(seed).filter((p) => p.dns === 'correct' && p.deleteAtMs === null).map((p) => ({ hostname: p.hostname, createAtMs: p.createAtMs }));
const OPTIONS: FaultScheduleOptions = { ...DEFAULT_FAULT_OPTIONS, processes: PROCESSES, receivers: APPS, domains: targetsOf(1234) };
const optionsFor = (seed: number): FaultScheduleOptions => ({ ...OPTIONS, domains: targetsOf(seed) });
const ofKind = <K extends Fault['kind']>(faults: readonly Fault[], kind: K) => faults.filter((f): f is Extract<Fault, { kind: K }> => f.kind === kind);

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
    const faults = faultSchedule(seed, optionsFor(seed));
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
    const faults = faultSchedule(5, optionsFor(5));
    expect(faultsEndMs(faults)).toBeGreaterThanOrEqual(197_000);
    const lines = describeSchedule(faults);
    expect(lines).toHaveLength(faults.length);
    expect(lines.filter((l) => l.includes('kill -9'))).toHaveLength(13);
    expect(lines.some((l) => /RabbitMQ node stopped for 20 s/.test(l))).toBe(true);
    expect(lines.some((l) => /pg_ctl restart -m immediate/.test(l))).toBe(true);
    expect(lines.some((l) => /answers 500 for 30 s/.test(l))).toBe(true);
    expect(lines.filter((l) => /DNS answers SERVFAIL for the (TXT name|hostname)/.test(l))).toHaveLength(ofKind(faults, 'dns-servfail').length);
    expect(lines.filter((l) => /origin of tenant-\d answers 503 to health probes for \d+(\.\d)? s/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /TXT record of shop\S+ removed \(conclusive\)/.test(l))).toHaveLength(3);
  });

  it('counts the end of a SERVFAIL burst and of the failing origin in the end of the faults', () => {
    const base: Fault[] = [{ kind: 'kill', atMs: 10_000, process: 'api-1', restartAfterMs: 2_000 }];
    expect(faultsEndMs([...base, { kind: 'dns-servfail', atMs: 11_000, hostname: 'a', names: 'txt', durationMs: 4_000 }])).toBe(15_000);
    expect(faultsEndMs([...base, { kind: 'origin-503', atMs: 9_000, application: 'tenant-0', durationMs: 8_000 }])).toBe(17_000);
    expect(faultsEndMs([...base, { kind: 'txt-removed', atMs: 30_000, hostname: 'a' }])).toBe(30_000);
  });
});

describe('fault schedule: faults on live domains (DECISIONS §11)', () => {
  it('keeps the faults a seed drew before these existed: they are drawn after them', () => {
    const without = { ...OPTIONS, domains: [] };
    const older = (faults: readonly Fault[]) => faults.filter((f) => ['kill', 'rabbitmq-stop', 'postgres-restart', 'receiver-500'].includes(f.kind));
    for (const seed of [1, 7, 902211]) expect(older(faultSchedule(seed, optionsFor(seed)))).toEqual(older(faultSchedule(seed, without)));
    // Without target domains there is no SERVFAIL burst and no break, but the origin still fails.
    const none = faultSchedule(3, without);
    expect(ofKind(none, 'dns-servfail')).toEqual([]);
    expect(ofKind(none, 'txt-removed')).toEqual([]);
    expect(ofKind(none, 'origin-503')).toHaveLength(1);
  });

  it.each([1, 2, 3, 99, 2 ** 31, 4294967295])('seed %d: a tenth of the target hostnames SERVFAIL once each, once they had time to turn ready', (seed) => {
    const options = optionsFor(seed);
    const created = new Map(options.domains.map((d) => [d.hostname, d.createAtMs]));
    const bursts: ServfailFault[] = ofKind(faultSchedule(seed, options), 'dns-servfail');
    const eligible = options.domains.filter((d) => d.createAtMs + options.readyAfterMs <= options.servfail.latestMs);
    expect(bursts).toHaveLength(Math.round(eligible.length / 10));
    expect(bursts.length).toBeGreaterThanOrEqual(15);
    expect(new Set(bursts.map((b) => b.hostname)).size).toBe(bursts.length);
    for (const b of bursts) {
      expect(created.has(b.hostname)).toBe(true);
      expect(b.atMs).toBeGreaterThanOrEqual(Math.max(options.servfail.earliestMs, (created.get(b.hostname) as number) + options.readyAfterMs));
      expect(b.atMs).toBeLessThanOrEqual(options.servfail.latestMs);
      expect(b.durationMs).toBeGreaterThanOrEqual(options.servfail.minMs);
      expect(b.durationMs).toBeLessThanOrEqual(options.servfail.maxMs);
      expect(['txt', 'cname', 'both']).toContain(b.names);
    }
  });

  it.each([1, 2, 3, 99])('seed %d: one origin answers 503 for a while; three other domains are broken, none of them SERVFAIL\'d', (seed) => {
    const options = optionsFor(seed);
    const faults = faultSchedule(seed, options);
    const origins: OriginFault[] = ofKind(faults, 'origin-503');
    expect(origins).toHaveLength(1);
    const [origin] = origins as [OriginFault];
    expect(APPS).toContain(origin.application);
    expect(origin.atMs).toBeGreaterThanOrEqual(options.origin.earliestMs);
    expect(origin.atMs).toBeLessThanOrEqual(options.origin.latestMs);
    expect(origin.durationMs).toBeGreaterThanOrEqual(options.origin.minMs);
    expect(origin.durationMs).toBeLessThanOrEqual(options.origin.maxMs);
    const broken: TxtRemovedFault[] = ofKind(faults, 'txt-removed');
    expect(broken).toHaveLength(3);
    const servfailed = new Set(ofKind(faults, 'dns-servfail').map((b) => b.hostname));
    const created = new Map(options.domains.map((d) => [d.hostname, d.createAtMs]));
    for (const b of broken) {
      expect(servfailed.has(b.hostname)).toBe(false);
      expect(b.atMs).toBeGreaterThanOrEqual(Math.max(options.breaks.earliestMs, (created.get(b.hostname) as number) + options.readyAfterMs));
      expect(b.atMs).toBeLessThanOrEqual(options.breaks.latestMs);
    }
    expect(new Set(broken.map((b) => b.hostname)).size).toBe(3);
  });

  it('hits other hostnames with another seed, and each kind of name over many seeds', () => {
    const hosts = (seed: number) => ofKind(faultSchedule(seed, OPTIONS), 'dns-servfail').map((b) => b.hostname).sort();
    expect(hosts(1)).not.toEqual(hosts(2));
    const names = new Set<string>();
    for (let seed = 0; seed < 10; seed++) for (const b of ofKind(faultSchedule(seed, OPTIONS), 'dns-servfail')) names.add(b.names);
    expect([...names].sort()).toEqual(['both', 'cname', 'txt']);
  });

  it('makes the TXT name, the hostname or both answer SERVFAIL', () => {
    const txt = '_custom-domain-challenge.shop.example.com';
    expect(servfailHosts('shop.example.com', 'txt', txt)).toEqual([txt]);
    expect(servfailHosts('shop.example.com', 'cname', txt)).toEqual(['shop.example.com']);
    expect(servfailHosts('shop.example.com', 'both', txt)).toEqual([txt, 'shop.example.com']);
  });

  it('every transient fault ends well within the outage grace, and lasts longer than the runs that confirm a failure', () => {
    // A burst starting with a failed run sees CHECK_CONFIRMATIONS runs before it is over: only the grace keeps the domain ready.
    expect(confirmationSpanMs()).toBe(3_000);
    expect(DEFAULT_FAULT_OPTIONS.servfail.minMs).toBeGreaterThan(confirmationSpanMs());
    expect(DEFAULT_FAULT_OPTIONS.origin.minMs).toBeGreaterThan(confirmationSpanMs());
    for (let seed = 0; seed < 30; seed++) {
      for (const f of transientFaults(faultSchedule(seed, optionsFor(seed % 3)))) expect(f.durationMs * 3).toBeLessThanOrEqual(OUTAGE_GRACE_MS);
    }
  });

  it('passes the checker settings in the variables\' own syntax', () => {
    expect(CHECK_SETTINGS).toMatchObject({
      CHECK_CONFIRMATIONS: String(CHECK_CONFIRMATIONS),
      CHECK_SCHEDULE_CONFIRM: '1s,2s',
      CHECK_OUTAGE_GRACE: '45s',
      CHECK_SCHEDULE_ATTENTION: '2s,3s,5s,10s,10s,10s,20s',
      CHECK_INTERVAL_LIVE: '60s',
      CHECK_SCHEDULE_PENDING: '5s,10s,15s',
    });
    expect(confirmationSpanMs(4, [1_000, 2_000])).toBe(5_000);
    expect(confirmationSpanMs(1, [1_000])).toBe(0);
  });
});
