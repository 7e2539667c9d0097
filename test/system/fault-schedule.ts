// The faults of one system-test run, drawn from a seed: the same seed gives the
// same schedule (times relative to the start of the workload, which process
// each kill hits, which receiver fails, which hostnames answer SERVFAIL,
// which origin fails its health probes, which domains are broken on purpose).
// Pure: the runner carries it out.
import { seededRandom } from './seeded-random';

export interface KillFault {
  kind: 'kill';
  atMs: number;
  /** The service process (`api-1`, `edge-proxy-2`, …) that gets SIGKILL. */
  process: string;
  /** Started again this long after the kill. */
  restartAfterMs: number;
}

export interface RabbitStopFault {
  kind: 'rabbitmq-stop';
  atMs: number;
  /** The broker node is down this long before it is started again. */
  downMs: number;
}

export interface PostgresRestartFault {
  kind: 'postgres-restart';
  atMs: number;
}

export interface ReceiverFault {
  kind: 'receiver-500';
  atMs: number;
  /** Which application's receiver answers 500. */
  receiver: string;
  durationMs: number;
}

/** Which of a domain's names answer SERVFAIL: its TXT record's name, the hostname (its CNAME), or both. */
export const SERVFAIL_NAMES = ['txt', 'cname', 'both'] as const;
export type ServfailNames = (typeof SERVFAIL_NAMES)[number];

/** A transient DNS fault: every query for the domain's names answers SERVFAIL for a while (inconclusive). */
export interface ServfailFault {
  kind: 'dns-servfail';
  atMs: number;
  hostname: string;
  names: ServfailNames;
  durationMs: number;
}

/** A transient origin fault: the application's origin answers 503 to its health probes (proxied requests still 200). */
export interface OriginFault {
  kind: 'origin-503';
  atMs: number;
  application: string;
  durationMs: number;
}

/**
 * A conclusive fault: the domain's TXT record is removed; once the domain is
 * attention_required it is published again (and the domain must recover).
 */
export interface TxtRemovedFault {
  kind: 'txt-removed';
  atMs: number;
  hostname: string;
}

export type Fault = KillFault | RabbitStopFault | PostgresRestartFault | ReceiverFault | ServfailFault | OriginFault | TxtRemovedFault;
export type TransientFault = ServfailFault | OriginFault;

/** A domain the DNS faults and the breaks may hit: published correctly and never deleted. */
export interface TargetDomain {
  hostname: string;
  createAtMs: number;
}

export interface Window {
  earliestMs: number;
  latestMs: number;
}

export interface FaultScheduleOptions {
  processes: readonly string[];
  /** The applications (their receivers and origins are named after them). */
  receivers: readonly string[];
  /** The domains a SERVFAIL burst or a break may hit (none: neither is drawn). */
  domains: readonly TargetDomain[];
  /** First kill; then one every `killEveryMs` while before `killUntilMs`. */
  firstKillMs: number;
  killEveryMs: number;
  killUntilMs: number;
  restartAfterMs: number;
  rabbit: Window & { downMs: number };
  postgres: Window;
  receiver: Window & { durationMs: number };
  /**
   * The broker outage (its `downMs` plus this much for the node to boot and
   * the services to reconnect) and the database restart never overlap, and
   * are at least this far apart, so each recovery is measured on its own.
   */
  separationMs: number;
  /** A share of the target domains answers SERVFAIL once each, for `minMs` to `maxMs`. */
  servfail: Window & { share: number; minMs: number; maxMs: number };
  /** One application's origin answers 503 to health probes for `minMs` to `maxMs`. */
  origin: Window & { minMs: number; maxMs: number };
  /** This many other target domains have their TXT record removed. */
  breaks: Window & { count: number };
  /** A domain is hit no sooner than this long after it is created (it should be ready by then). */
  readyAfterMs: number;
}

/** The run's defaults (milliseconds after the workload starts; domains are created over the first two minutes). */
export const DEFAULT_FAULT_OPTIONS: Omit<FaultScheduleOptions, 'processes' | 'receivers' | 'domains'> = {
  firstKillMs: 15_000,
  killEveryMs: 15_000,
  killUntilMs: 200_000,
  restartAfterMs: 2_000,
  rabbit: { earliestMs: 30_000, latestMs: 100_000, downMs: 20_000 },
  postgres: { earliestMs: 40_000, latestMs: 150_000 },
  receiver: { earliestMs: 20_000, latestMs: 140_000, durationMs: 30_000 },
  separationMs: 15_000,
  // Shorter than the outage grace (check-settings.ts) by far, longer than the runs confirming a failure take.
  servfail: { earliestMs: 30_000, latestMs: 170_000, share: 0.1, minMs: 4_000, maxMs: 10_000 },
  origin: { earliestMs: 40_000, latestMs: 150_000, minMs: 8_000, maxMs: 15_000 },
  breaks: { earliestMs: 50_000, latestMs: 130_000, count: 3 },
  readyAfterMs: 40_000,
};

const within = (random: () => number, w: Window): number => Math.round(w.earliestMs + random() * (w.latestMs - w.earliestMs));
/** A duration from `minMs` to `maxMs`, to a tenth of a second. */
const lasting = (random: () => number, minMs: number, maxMs: number): number => Math.round((minMs + random() * (maxMs - minMs)) / 100) * 100;

export function faultSchedule(seed: number, opts: FaultScheduleOptions): Fault[] {
  if (opts.processes.length === 0 || opts.receivers.length === 0) throw new Error('a schedule needs processes and receivers');
  const random = seededRandom(seed);
  const faults: Fault[] = [];
  for (let at = opts.firstKillMs; at < opts.killUntilMs; at += opts.killEveryMs) {
    faults.push({ kind: 'kill', atMs: at, process: random.pick(opts.processes), restartAfterMs: opts.restartAfterMs });
  }
  const rabbitAt = within(random.next, opts.rabbit);
  faults.push({ kind: 'rabbitmq-stop', atMs: rabbitAt, downMs: opts.rabbit.downMs });
  // The database restart: drawn until it is clear of the broker outage (a bounded number of draws, then the
  // first clear time scanning the window), so every seed gives a schedule.
  const rabbitBusy = { from: rabbitAt - opts.separationMs, to: rabbitAt + opts.rabbit.downMs + opts.separationMs };
  const clear = (at: number) => at < rabbitBusy.from || at > rabbitBusy.to;
  let postgresAt = within(random.next, opts.postgres);
  for (let tries = 0; !clear(postgresAt) && tries < 50; tries++) postgresAt = within(random.next, opts.postgres);
  if (!clear(postgresAt)) {
    const candidates = [opts.postgres.earliestMs, rabbitBusy.to + 1, opts.postgres.latestMs].filter((at) => clear(at) && at >= opts.postgres.earliestMs && at <= opts.postgres.latestMs);
    if (candidates.length === 0) throw new Error('the PostgreSQL window has no time clear of the RabbitMQ outage');
    postgresAt = candidates[0] as number;
  }
  faults.push({ kind: 'postgres-restart', atMs: postgresAt });
  faults.push({ kind: 'receiver-500', atMs: within(random.next, opts.receiver), receiver: random.pick(opts.receivers), durationMs: opts.receiver.durationMs });
  // Drawn after the faults above, so a seed keeps the kills, outages and receiver it gave before these existed.
  faults.push({ kind: 'origin-503', atMs: within(random.next, opts.origin), application: random.pick(opts.receivers), durationMs: lasting(random.next, opts.origin.minMs, opts.origin.maxMs) });
  // A domain is hit once it has had time to turn ready: its window starts `readyAfterMs` after its create.
  const windowOf = (d: TargetDomain, w: Window): Window | null => {
    const earliestMs = Math.max(w.earliestMs, d.createAtMs + opts.readyAfterMs);
    return earliestMs <= w.latestMs ? { earliestMs, latestMs: w.latestMs } : null;
  };
  const servfailable = opts.domains.filter((d) => windowOf(d, opts.servfail) !== null);
  const servfailed = random.shuffle(servfailable).slice(0, Math.round(servfailable.length * opts.servfail.share));
  for (const d of servfailed) {
    faults.push({
      kind: 'dns-servfail', atMs: within(random.next, windowOf(d, opts.servfail) as Window), hostname: d.hostname,
      names: random.pick(SERVFAIL_NAMES), durationMs: lasting(random.next, opts.servfail.minMs, opts.servfail.maxMs),
    });
  }
  // The domains broken on purpose are not SERVFAIL'd: each fault is told apart.
  const hit = new Set(servfailed.map((d) => d.hostname));
  const breakable = opts.domains.filter((d) => !hit.has(d.hostname) && windowOf(d, opts.breaks) !== null);
  for (const d of random.shuffle(breakable).slice(0, opts.breaks.count)) {
    faults.push({ kind: 'txt-removed', atMs: within(random.next, windowOf(d, opts.breaks) as Window), hostname: d.hostname });
  }
  return faults.sort((a, b) => a.atMs - b.atMs || a.kind.localeCompare(b.kind));
}

/** When the last fault is over (its end, for the ones that last). */
export function faultsEndMs(faults: readonly Fault[]): number {
  return Math.max(0, ...faults.map((f) => {
    switch (f.kind) {
      case 'kill': return f.atMs + f.restartAfterMs;
      case 'rabbitmq-stop': return f.atMs + f.downMs;
      case 'receiver-500': return f.atMs + f.durationMs;
      case 'postgres-restart': return f.atMs;
      case 'dns-servfail': return f.atMs + f.durationMs;
      case 'origin-503': return f.atMs + f.durationMs;
      case 'txt-removed': return f.atMs;
    }
  }));
}

/** The faults the deployment must ride out without a ready domain leaving ready: the SERVFAIL bursts and the failing origin. */
export function transientFaults(faults: readonly Fault[]): TransientFault[] {
  return faults.filter((f): f is TransientFault => f.kind === 'dns-servfail' || f.kind === 'origin-503');
}

/** The names a SERVFAIL burst makes fail: the TXT record's name, the hostname, or both. */
export function servfailHosts(hostname: string, names: ServfailNames, txtName: string): string[] {
  switch (names) {
    case 'txt': return [txtName];
    case 'cname': return [hostname];
    case 'both': return [txtName, hostname];
  }
}

const SERVFAIL_WHAT: Record<ServfailNames, string> = { txt: 'the TXT name', cname: 'the hostname (CNAME)', both: 'the TXT name and the hostname' };
const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

/** One line per fault, as the run prints it at the start. */
export function describeSchedule(faults: readonly Fault[]): string[] {
  return faults.map((f) => {
    switch (f.kind) {
      case 'kill': return `${seconds(f.atMs)}  kill -9 ${f.process}, restarted ${f.restartAfterMs / 1000} s later`;
      case 'rabbitmq-stop': return `${seconds(f.atMs)}  RabbitMQ node stopped for ${f.downMs / 1000} s`;
      case 'postgres-restart': return `${seconds(f.atMs)}  PostgreSQL restarted (pg_ctl restart -m immediate)`;
      case 'receiver-500': return `${seconds(f.atMs)}  receiver of ${f.receiver} answers 500 for ${f.durationMs / 1000} s`;
      case 'dns-servfail': return `${seconds(f.atMs)}  DNS answers SERVFAIL for ${SERVFAIL_WHAT[f.names]} of ${f.hostname} for ${f.durationMs / 1000} s`;
      case 'origin-503': return `${seconds(f.atMs)}  origin of ${f.application} answers 503 to health probes for ${f.durationMs / 1000} s`;
      case 'txt-removed': return `${seconds(f.atMs)}  TXT record of ${f.hostname} removed (conclusive), published again once the domain is attention_required`;
    }
  });
}
