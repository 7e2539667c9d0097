// The faults of one system-test run, drawn from a seed: the same seed gives the
// same schedule (times relative to the start of the workload, which process
// each kill hits, which receiver fails). Pure: the runner carries it out.
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

export type Fault = KillFault | RabbitStopFault | PostgresRestartFault | ReceiverFault;

export interface Window {
  earliestMs: number;
  latestMs: number;
}

export interface FaultScheduleOptions {
  processes: readonly string[];
  receivers: readonly string[];
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
}

/** The run's defaults (milliseconds after the workload starts; domains are created over the first two minutes). */
export const DEFAULT_FAULT_OPTIONS: Omit<FaultScheduleOptions, 'processes' | 'receivers'> = {
  firstKillMs: 15_000,
  killEveryMs: 15_000,
  killUntilMs: 200_000,
  restartAfterMs: 2_000,
  rabbit: { earliestMs: 30_000, latestMs: 100_000, downMs: 20_000 },
  postgres: { earliestMs: 40_000, latestMs: 150_000 },
  receiver: { earliestMs: 20_000, latestMs: 140_000, durationMs: 30_000 },
  separationMs: 15_000,
};

const within = (random: () => number, w: Window): number => Math.round(w.earliestMs + random() * (w.latestMs - w.earliestMs));

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
    }
  }));
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;

/** One line per fault, as the run prints it at the start. */
export function describeSchedule(faults: readonly Fault[]): string[] {
  return faults.map((f) => {
    switch (f.kind) {
      case 'kill': return `${seconds(f.atMs)}  kill -9 ${f.process}, restarted ${f.restartAfterMs / 1000} s later`;
      case 'rabbitmq-stop': return `${seconds(f.atMs)}  RabbitMQ node stopped for ${f.downMs / 1000} s`;
      case 'postgres-restart': return `${seconds(f.atMs)}  PostgreSQL restarted (pg_ctl restart -m immediate)`;
      case 'receiver-500': return `${seconds(f.atMs)}  receiver of ${f.receiver} answers 500 for ${f.durationMs / 1000} s`;
    }
  });
}
