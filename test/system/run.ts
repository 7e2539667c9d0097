// One system-test run: the deployment under a seeded workload and fault
// schedule, then the observations the invariants are evaluated on. Everything
// the run does is logged with its time since the workload started.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'pg';
import { ROUTING_KEYS } from '@cds/core';
import { classifyOrders } from './acme-orders';
import { ApiClients } from './api-client';
import { EDGE_TARGET, startDeployment, type Deployment } from './deployment';
import { CHECK_SETTINGS, OUTAGE_GRACE_MS } from './check-settings';
import { DEFAULT_FAULT_OPTIONS, describeSchedule, faultSchedule, faultsEndMs, servfailHosts, type Fault, type FaultScheduleOptions } from './fault-schedule';
import {
  evaluateApiAnswers, evaluateAvailability, evaluateBreaks, evaluateDomains, evaluateLiveDomains, evaluateOrders, evaluateProcesses, evaluateRecovery, evaluateWebhooks,
  invariantTable, type BreakRecord, type DomainEventRecord, type InvariantResult, type ObservedDomain, type OriginOutage, type RecoveryState, type ServfailHit,
  type SkippedFault, type TimeWindow,
} from './invariants';
import { HEALTH_PATH, startOrigin, type Origin } from './origins';
import { startReceiver, type Receiver } from './receivers';
import { figuresMarkdown, liveFaultFigures, type RunFigures } from './report';
import { Traffic } from './traffic';
import { DEFAULT_WORKLOAD, workloadPlan, type PlannedDomain, type WorkloadOptions } from './workload-plan';

const ROOT = join(__dirname, '../..');
const EVENTS = ['domain.ready', 'domain.attention_required', 'domain.recovered', 'domain.deleted'];
/** Every process gets these on top of the deployment's own settings. */
const SERVICE_SETTINGS: Record<string, string> = {
  // The checker's schedules, confirmations and outage grace, short and matched to the faults (check-settings.ts).
  ...CHECK_SETTINGS,
  ACME_ORDERS_PER_HOUR: '100000',
  ACME_ORDERS_PER_APPLICATION_PER_HOUR: '100000',
  // 8 attempts over 74 s: a receiver failing for 30 s (and a dispatcher killed meanwhile) loses nothing.
  WEBHOOK_RETRY_SCHEDULE: '2s,4s,8s,15s',
  WEBHOOK_TIMEOUT: '5s',
};
const APP_LIMITS = { live_domains: 1000, api_requests_per_minute: 1_000_000, proxied_requests_per_minute: 1_000_000, proxied_requests_per_second: 100_000 };
/** After the last fault, how long the deployment may take to settle before the invariants are checked anyway. */
const RECOVERY_TIMEOUT_MS = 120_000;
/** The API's database pool reconnects after PostgreSQL is back: its 503s until then are part of the outage. */
const POSTGRES_WINDOW_GRACE_MS = 5_000;
/** The contract: a domain that turns ready is served by every edge within 5 seconds. */
const SERVED_WITHIN_MS = 5_000;
/**
 * A SERVFAIL burst or a break waits this long for its domain to be ready;
 * then it hits another target domain that is ready (the first after it in
 * the plan's order that no other such fault takes), or is skipped when none is.
 */
const READY_WAIT_MS = 10_000;
/** A broken domain is waited for this long to turn attention_required, and then ready again. */
const BREAK_WAIT_MS = 90_000;
/** Domains of the failing origin's application rechecked while it fails (the others are checked when their turn comes). */
const ORIGIN_RECHECKS = 5;
/** The API allows one recheck per domain per minute. */
const RECHECK_EVERY_MS = 60_000;
/** How often the check rows are sampled for streaks of failed runs and attention_required domains. */
const SAMPLE_EVERY_MS = 500;
const ATTENTION_EVENT = 'domain.attention_required';

export const INVARIANTS = ['domains', 'transient', 'conclusive', 'webhooks', 'recovery', 'orders', 'availability', 'api', 'idempotency', 'processes'] as const;
export type InvariantKey = (typeof INVARIANTS)[number];

export interface RunOutcome {
  seed: number;
  results: Record<InvariantKey, InvariantResult>;
  table: string;
  figures: RunFigures;
  durationMs: number;
  runDir: string;
}

interface App {
  index: number;
  slug: string;
  key: string;
  id: string;
  receiver: Receiver;
  origin: Origin;
  subscriptionId: string;
}

interface Created {
  plan: PlannedDomain;
  id: string;
  deleted: boolean;
  /** The ownership TXT record the API asked for. */
  txt: { name: string; value: string } | null;
}

interface Sampled {
  maxFailedRuns: number;
  failedChecks: string[];
  attentionAtMs: number | null;
}

/** The run's shape; the defaults are the issue's (tests of the runner itself shrink them). */
export interface RunOptions {
  workload: WorkloadOptions;
  faults: Omit<FaultScheduleOptions, 'processes' | 'receivers' | 'domains'>;
  recoveryTimeoutMs: number;
}

export const DEFAULT_RUN: RunOptions = { workload: DEFAULT_WORKLOAD, faults: DEFAULT_FAULT_OPTIONS, recoveryTimeoutMs: RECOVERY_TIMEOUT_MS };

export async function runSystemTest(seed: number, options: RunOptions = DEFAULT_RUN): Promise<RunOutcome> {
  const startedAt = Date.now();
  const runDir = join(ROOT, 'test-results', 'system', `seed-${seed}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(runDir, { recursive: true });
  let t0: number | null = null;
  const clock = () => (t0 === null ? 0 : Date.now() - t0);
  const log = (line: string) => {
    const stamp = t0 === null ? `[setup +${((Date.now() - startedAt) / 1000).toFixed(1)} s]` : `[${(clock() / 1000).toFixed(1).padStart(6)} s]`;
    const text = `${stamp} ${line}\n`;
    process.stdout.write(text);
    appendFileSync(join(runDir, 'run.log'), text);
  };

  const workload = options.workload;
  const plan = workloadPlan(seed, workload);
  const appNames = Array.from({ length: workload.applications }, (_, i) => `tenant-${i}`);
  const processNames = ['api', 'checker', 'webhook-dispatcher', 'edge-proxy'].flatMap((s) => [`${s}-1`, `${s}-2`]);
  // SERVFAIL bursts and breaks hit correctly published domains that stay.
  const targets = plan.filter((p) => p.dns === 'correct' && p.deleteAtMs === null).map((p) => ({ hostname: p.hostname, createAtMs: p.createAtMs }));
  const faults = faultSchedule(seed, { ...options.faults, processes: processNames, receivers: appNames, domains: targets });
  log(`system test, seed ${seed} (replay: SYSTEM_SEED=${seed} make test-system); logs in ${runDir}`);
  log(`workload: ${plan.length} domains for ${appNames.length} applications over ${workload.createOverMs / 1000} s, ${plan.filter((d) => d.dns !== 'correct').length} published wrongly, ${plan.filter((d) => d.deleteAtMs !== null).length} deleted from ${workload.deleteFromMs / 1000} s`);
  log(`checker: ${['CHECK_CONFIRMATIONS', 'CHECK_SCHEDULE_CONFIRM', 'CHECK_OUTAGE_GRACE', 'CHECK_SCHEDULE_ATTENTION', 'CHECK_INTERVAL_LIVE', 'CHECK_SCHEDULE_PENDING'].map((k) => `${k}=${SERVICE_SETTINGS[k]}`).join(' ')}`);
  log('fault schedule (seconds after the workload starts):');
  for (const line of describeSchedule(faults)) log(`  ${line}`);

  const receivers: Receiver[] = [];
  const origins: Origin[] = [];
  let deployment: Deployment | null = null;
  let db: Pool | null = null;
  let traffic: Traffic | null = null;
  try {
    const receiverClock = () => clock();
    deployment = await startDeployment({ runDir, log, clock, env: SERVICE_SETTINGS });
    const d = deployment;
    db = new Pool({ connectionString: d.pg.url, max: 4, connectionTimeoutMillis: 2_000 });
    db.on('error', () => undefined); // its idle connections die with the restart; the next query reconnects
    const pool = db;
    const api = new ApiClients(d.apiUrls, clock);

    // ------------------------------------------------------------ applications
    const apps: App[] = [];
    for (const [index, slug] of appNames.entries()) {
      const receiver = await startReceiver(slug, d.receiverCa, receiverClock);
      receivers.push(receiver);
      const origin = await startOrigin(slug);
      origins.push(origin);
      apps.push(await setUpApplication(api, d, index, slug, receiver, origin));
    }
    log(`applications ${apps.map((a) => `${a.slug} (${a.origin.key?.kid === d.deploymentKey.kid ? 'deployment key' : `own key ${a.origin.key?.kid}`})`).join(', ')}, each with an active origin and a webhook subscription`);

    // ------------------------------------------------------------ the run
    const edgeTraffic = new Traffic({ edgePorts: d.edgeHttpsPorts, ca: d.pebbleRoot, ratePerSecond: 25, concurrency: 8, clock });
    traffic = edgeTraffic;
    t0 = Date.now();
    const startedWallMs = t0;
    log('workload starts');
    edgeTraffic.start();
    const created = new Map<number, Created>();
    const idempotencyProblems: string[] = [];
    const workProblems: string[] = [];
    const figures: RunFigures = {
      seed, date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC', durationMs: 0, faults: describeSchedule(faults), kills: [], recoveries: [],
      rabbitDownMs: null, postgresDownMs: null, recoveredAfterLastFaultMs: null, events: 0, webhookRequests: 0, webhookDuplicates: {},
      traffic: { sent: 0, ok: 0, duringFaults: { sent: 0, ok: 0 }, inPostgresWindow: { sent: 0, ok: 0 }, sentAgainToTheOtherEdge: 0, failures: {} },
      api: { requests: 0, unanswered: 0, statuses: {} }, orders: { total: 0, valid: 0, invalid: 0, unfinished: 0, reordered: 0 }, verdicts: [],
    };
    const recoveries = figures.recoveries;
    let postgresWindow: TimeWindow = { fromMs: -1, toMs: -1 };
    const servfails: ServfailHit[] = [];
    const servfailsSkipped: SkippedFault[] = [];
    let originOutage: OriginOutage | null = null;
    const breaks: BreakRecord[] = [];
    /** Domains kept out of the traffic while broken on purpose (an attention_required domain is not served). */
    const heldOut = new Set<string>();
    const lastRecheck = new Map<string, number>();
    const scheduledHosts = new Set(faults.flatMap((f) => (f.kind === 'dns-servfail' || f.kind === 'txt-removed' ? [f.hostname] : [])));
    /** Target domains hit in place of a scheduled one that was not ready in time. */
    const substitutes = new Set<string>();

    const at = (ms: number) => sleep(Math.max(0, ms - clock()));
    const pendingOf = async (sql: string, params: unknown[] = []): Promise<number | null> =>
      pool.query<{ n: string }>(sql, params).then((r) => Number(r.rows[0]?.n ?? 0), () => null);
    const unpublished = () => pendingOf('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL AND set_aside_at IS NULL');
    const waitFor = async (what: string, from: number, probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> => {
      while (clock() - from < timeoutMs) {
        if (await probe().catch(() => false)) {
          const line = `${what} ${((clock() - from) / 1000).toFixed(1)} s after`;
          recoveries.push(line);
          log(line);
          return;
        }
        await sleep(250);
      }
      recoveries.push(`${what}: not within ${timeoutMs / 1000} s`);
      log(`${what}: NOT within ${timeoutMs / 1000} s`);
    };
    const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const createdHost = (hostname: string) => [...created.values()].find((c) => c.plan.hostname === hostname);
    // Statuses are read from the database, as the sampler does: the faults on live domains do not wait for an API replica to be back.
    const statusOf = async (hostname: string): Promise<string | null> =>
      pool.query<{ status: string }>('SELECT status FROM domains WHERE hostname = $1 AND deleted_at IS NULL', [hostname]).then((r) => r.rows[0]?.status ?? null, () => null);
    /** The hostnames ready now (of one application, or all); null while the database does not answer. */
    const readyHostnames = async (appId?: string): Promise<string[] | null> =>
      pool.query<{ hostname: string }>(
        `SELECT hostname FROM domains WHERE status = 'ready' AND deleted_at IS NULL${appId ? ' AND application_id = $1' : ''} ORDER BY hostname`, appId ? [appId] : [],
      ).then((r) => r.rows.map((row) => row.hostname), () => null);
    const waitReady = async (hostname: string): Promise<boolean> => {
      const from = clock();
      while (clock() - from < READY_WAIT_MS) {
        if ((await statusOf(hostname)) === 'ready') return true;
        await sleep(1_000);
      }
      return false;
    };
    /** The domain a SERVFAIL burst or a break hits: the scheduled one once ready, else a ready stand-in (null: none). */
    type Target = { hostname: string; txt: { name: string; value: string }; insteadOf?: string };
    const targetFor = async (scheduled: string): Promise<Target | string> => {
      const own = (await waitReady(scheduled)) ? createdHost(scheduled) : undefined;
      if (own?.txt) return { hostname: scheduled, txt: own.txt };
      const listed = await readyHostnames();
      const readyNow = new Set(listed ?? []);
      const i = targets.findIndex((t) => t.hostname === scheduled);
      const free = (h: string) => readyNow.has(h) && !scheduledHosts.has(h) && !substitutes.has(h) && !heldOut.has(h) && clock() - (lastRecheck.get(h) ?? -RECHECK_EVERY_MS) >= RECHECK_EVERY_MS;
      const pick = [...targets.slice(i + 1), ...targets.slice(0, Math.max(0, i))].find((t) => free(t.hostname));
      const c = pick ? createdHost(pick.hostname) : undefined;
      if (!pick || !c?.txt) return listed === null ? `the database did not answer at ${secs(clock())}` : `neither it nor another target domain ready at ${secs(clock())}`;
      substitutes.add(pick.hostname);
      return { hostname: pick.hostname, txt: c.txt, insteadOf: scheduled };
    };
    /**
     * POST /v1/domains/{id}/checks: the checker runs at once (the API allows one a minute per domain). Sent
     * again, to either replica, while no replica answers or the database is away, until `untilMs`.
     */
    const recheck = async (hostname: string, untilMs: number): Promise<void> => {
      const c = createdHost(hostname);
      if (!c) return;
      for (let attempt = 0; ; attempt++) {
        lastRecheck.set(hostname, clock());
        const r = await api.call(c.plan.index + attempt, 'POST', `/v1/domains/${c.id}/checks`, { token: (apps[c.plan.app] as App).key });
        if (r.status === 202) return;
        if ((r.status !== 0 && r.status < 500) || clock() + 1_000 > untilMs) {
          log(`recheck of ${hostname}: ${r.status} ${r.text.slice(0, 160) || r.error}${attempt > 0 ? ` (${attempt + 1} tries)` : ''}`);
          return;
        }
        await sleep(1_000);
      }
    };
    /** challtestsrv's /set-servfail and /clear-servfail: every query for the name answers SERVFAIL, or its records again. */
    const servfail = async (action: 'set' | 'clear', name: string): Promise<void> => {
      const host = `${name.toLowerCase().replace(/\.$/, '')}.`;
      const res = await fetch(`${d.dns.management}/${action}-servfail`, { method: 'POST', body: JSON.stringify({ host }) });
      if (!res.ok) throw new Error(`challtestsrv /${action}-servfail ${host}: ${res.status} ${await res.text()}`);
    };
    const receivedEvent = (hostname: string, type: string, sinceMs: number) =>
      receivers.some((r) => r.received.some((x) => x.verified && x.hostname === hostname && x.type === type && x.atMs >= sinceMs));
    const allReady = async () => (await Promise.all(d.supervisor.names().map((n) => d.supervisor.probeReady(n)))).every(Boolean);

    // Faults.
    const faultJobs = faults.map(async (fault: Fault) => {
      await at(fault.atMs);
      switch (fault.kind) {
        case 'kill':
          d.supervisor.kill(fault.process);
          return;
        case 'rabbitmq-stop': {
          log(`RabbitMQ: stopping node ${d.rabbit.node} (rabbitmqctl stop)`);
          await d.rabbit.stop();
          const stopped = clock();
          // The node takes as long to boot as it did at first: it is started that much earlier, so it is down for `downMs`.
          const startIn = Math.max(0, fault.downMs - d.rabbit.bootMs);
          log(`RabbitMQ: node stopped (port ${d.rabbit.port} closed); starting it again in ${(startIn / 1000).toFixed(1)} s (it boots in about ${(d.rabbit.bootMs / 1000).toFixed(1)} s)`);
          await at(stopped + startIn);
          log(`RabbitMQ: starting node ${d.rabbit.node}`);
          await d.rabbit.start();
          const back = clock();
          figures.rabbitDownMs = back - stopped;
          log(`RabbitMQ: node accepting connections again, down for ${((back - stopped) / 1000).toFixed(1)} s (${((back - fault.atMs) / 1000).toFixed(1)} s after the stop command)`);
          await Promise.all([
            waitFor('RabbitMQ: every service ready (bus reconnected)', back, allReady),
            waitFor('RabbitMQ: outbox backlog published', back, async () => (await unpublished()) === 0),
          ]);
          return;
        }
        case 'postgres-restart': {
          const from = clock();
          log('PostgreSQL: pg_ctl restart -m immediate (stop: every connection cut, no checkpoint)');
          postgresWindow = { fromMs: from, toMs: Number.POSITIVE_INFINITY };
          await d.pg.restart('immediate');
          const back = clock();
          postgresWindow = { fromMs: from, toMs: back + POSTGRES_WINDOW_GRACE_MS };
          figures.postgresDownMs = back - from;
          log(`PostgreSQL: started again and accepting connections, ${((back - from) / 1000).toFixed(1)} s after the stop`);
          await waitFor('PostgreSQL: API answering 2xx again', back, async () => {
            const r = await api.call(0, 'GET', '/v1/domains?limit=1', { token: apps[0]?.key ?? '' });
            return r.status === 200;
          });
          return;
        }
        case 'receiver-500': {
          const receiver = receivers.find((r) => r.name === fault.receiver);
          const app = apps.find((a) => a.slug === fault.receiver);
          if (!receiver || !app) throw new Error(`no receiver ${fault.receiver}`);
          receiver.failing = true;
          log(`receiver of ${receiver.name}: answering 500 for ${fault.durationMs / 1000} s`);
          await at(fault.atMs + fault.durationMs);
          receiver.failing = false;
          const back = clock();
          log(`receiver of ${receiver.name}: answering 200 again`);
          await waitFor(`receiver of ${receiver.name}: every pending delivery delivered`, back, async () =>
            (await pendingOf("SELECT count(*) AS n FROM webhook_deliveries WHERE subscription_id = $1 AND state = 'pending'", [app.subscriptionId])) === 0);
          return;
        }
        case 'dns-servfail': {
          const target = await targetFor(fault.hostname);
          if (typeof target === 'string') {
            servfailsSkipped.push({ hostname: fault.hostname, reason: target });
            log(`DNS: SERVFAIL burst of ${fault.hostname} skipped: ${target}`);
            return;
          }
          const hostname = target.hostname;
          const names = servfailHosts(hostname, fault.names, target.txt.name);
          const from = clock();
          try {
            for (const name of names) await servfail('set', name);
            log(`DNS: SERVFAIL for ${names.join(' and ')} for ${fault.durationMs / 1000} s${target.insteadOf ? ` (in place of ${target.insteadOf}, not ready yet)` : ''}; a transient fault: the domain must stay ready`);
            // The checker sees it at once, then on its confirmation schedule: more failed runs than CHECK_CONFIRMATIONS within the burst.
            await recheck(hostname, from + fault.durationMs);
            await sleep(Math.max(0, from + fault.durationMs - clock()));
          } finally {
            for (const name of names) await servfail('clear', name);
          }
          const to = clock();
          servfails.push({ hostname, names: fault.names, fromMs: from, toMs: to, ...(target.insteadOf ? { insteadOf: target.insteadOf } : {}) });
          log(`DNS: ${hostname} answered normally again after ${secs(to - from)} of SERVFAIL`);
          return;
        }
        case 'origin-503': {
          const app = apps.find((a) => a.slug === fault.application);
          if (!app) throw new Error(`no application ${fault.application}`);
          const before = app.origin.healthAnswered503;
          const from = clock();
          let readyNames: string[] = [];
          app.origin.healthFailing = true;
          try {
            log(`origin of ${app.slug}: answering 503 to health probes for ${fault.durationMs / 1000} s (proxied requests still served; a transient fault)`);
            // Its ready domains, asked again while the database does not answer (its restart), within the outage.
            for (;;) {
              const listed = await readyHostnames(app.id);
              if (listed) {
                readyNames = listed;
                break;
              }
              if (clock() > from + fault.durationMs - 2_000) break;
              await sleep(1_000);
            }
            const rechecked = readyNames.filter((h) => !scheduledHosts.has(h) && !substitutes.has(h) && !heldOut.has(h) && clock() - (lastRecheck.get(h) ?? -RECHECK_EVERY_MS) >= RECHECK_EVERY_MS).slice(0, ORIGIN_RECHECKS);
            await Promise.all(rechecked.map((hostname) => recheck(hostname, from + fault.durationMs)));
            await sleep(Math.max(0, from + fault.durationMs - clock()));
          } finally {
            app.origin.healthFailing = false;
          }
          const to = clock();
          originOutage = { application: app.slug, fromMs: from, toMs: to, probesAnswered503: app.origin.healthAnswered503 - before, readyDomains: readyNames };
          log(`origin of ${app.slug}: healthy again after ${secs(to - from)}; ${originOutage.probesAnswered503} probes answered 503, ${readyNames.length} of its domains were ready`);
          return;
        }
        case 'txt-removed': {
          const target = await targetFor(fault.hostname);
          if (typeof target === 'string') {
            breaks.push({ hostname: fault.hostname, removedAtMs: null, republishedAtMs: null, skipped: target });
            log(`DNS: break of ${fault.hostname} skipped: ${target}`);
            return;
          }
          const { hostname, txt } = target;
          const record: BreakRecord = { hostname, removedAtMs: null, republishedAtMs: null, ...(target.insteadOf ? { insteadOf: target.insteadOf } : {}) };
          breaks.push(record);
          // An attention_required domain is not served: it leaves the traffic first.
          heldOut.add(hostname);
          edgeTraffic.remove(hostname);
          await d.dns.clearTxt(txt.name);
          const removedAt = clock();
          record.removedAtMs = removedAt;
          log(`DNS: TXT record ${txt.name} removed${target.insteadOf ? ` (in place of ${target.insteadOf}, not ready yet)` : ''}; a conclusive failure: the domain must leave ready once it is confirmed`);
          await recheck(hostname, removedAt + RECHECK_EVERY_MS / 2);
          await waitFor(`TXT record of ${hostname} removed: attention_required`, removedAt, async () =>
            receivedEvent(hostname, ATTENTION_EVENT, removedAt) || (await statusOf(hostname)) === 'attention_required', BREAK_WAIT_MS);
          await d.dns.setTxt(txt.name, txt.value);
          const back = clock();
          record.republishedAtMs = back;
          log(`DNS: TXT record ${txt.name} published again`);
          await waitFor(`TXT record of ${hostname} published again: ready`, back, async () => (await statusOf(hostname)) === 'ready', BREAK_WAIT_MS);
          heldOut.delete(hostname); // the ready poller brings it back into the traffic
          return;
        }
      }
    }).map((job) => job.catch((err: unknown) => {
      workProblems.push(`a fault could not be carried out: ${err instanceof Error ? err.message : String(err)}`);
      log(`FAULT FAILED: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    }));

    // Creates, DNS, deletes.
    const createJobs = plan.map(async (p) => {
      const app = apps[p.app] as App;
      await at(p.createAtMs);
      const domain = await createDomain(api, app, p, seed, idempotencyProblems);
      if (!domain) {
        workProblems.push(`${p.hostname}: could not be created`);
        return;
      }
      const txt = domain.dns_records.find((r) => r.type === 'TXT');
      created.set(p.index, { plan: p, id: domain.id, deleted: false, txt: txt ? { name: txt.name, value: txt.value } : null });
      app.origin.domains.set(p.hostname, { id: domain.id, reference: p.reference });
      await publishDns(d, p, domain.dns_records);
      if (p.deleteAtMs === null) return;
      await at(p.deleteAtMs);
      edgeTraffic.remove(p.hostname);
      if (await deleteDomain(api, app, p, domain.id)) (created.get(p.index) as Created).deleted = true;
      else workProblems.push(`${p.hostname}: could not be deleted`);
    }).map((job) => job.catch((err: unknown) => workProblems.push(`workload: ${err instanceof Error ? err.message : String(err)}`)));

    // Ready domains join the traffic (the contract's 5 seconds after the API says ready).
    let polling = true;
    const readyPoller = (async () => {
      let turn = 0;
      while (polling) {
        for (const app of apps) {
          const ready = await listDomains(api, turn++, app, 'status=ready');
          for (const domain of ready ?? []) {
            const p = plan.find((x) => x.hostname === domain.hostname);
            if (p && (p.deleteAtMs === null || clock() < p.deleteAtMs - 1_000) && !edgeTraffic.has(domain.hostname) && !heldOut.has(domain.hostname)) {
              edgeTraffic.add(domain.hostname, clock() + SERVED_WITHIN_MS);
            }
          }
        }
        await sleep(3_000);
      }
    })();

    // The check rows, sampled: streaks of failed runs of ready domains (the checker seeing a fault and confirming it), and attention_required domains.
    const sampled: Record<string, Sampled> = {};
    let streaksSampled = true;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const sampledAt = clock();
        const sql = streaksSampled
          ? "SELECT d.hostname, d.status, c.type, c.failed_runs FROM domains d JOIN domain_checks c ON c.domain_id = d.id WHERE c.failed_runs > 0 OR d.status = 'attention_required'"
          : "SELECT d.hostname, d.status, NULL AS type, 0 AS failed_runs FROM domains d WHERE d.status = 'attention_required'";
        try {
          for (const row of (await pool.query<{ hostname: string; status: string; type: string | null; failed_runs: number }>(sql)).rows) {
            const seen = (sampled[row.hostname] ??= { maxFailedRuns: 0, failedChecks: [], attentionAtMs: null });
            if (row.status === 'attention_required') seen.attentionAtMs ??= sampledAt;
            else if (row.status === 'ready' && row.failed_runs > 0) {
              seen.maxFailedRuns = Math.max(seen.maxFailedRuns, row.failed_runs);
              if (row.type && !seen.failedChecks.includes(row.type)) seen.failedChecks.push(row.type);
            }
          }
        } catch (err) {
          // 42703: no such column (the schema has no streaks); anything else is an outage, sampled again next time.
          if ((err as { code?: string }).code === '42703') {
            streaksSampled = false;
            log('sampler: domain_checks has no failed_runs column; sampling attention_required statuses only');
          }
        }
        await sleep(SAMPLE_EVERY_MS);
      }
    })();

    await Promise.all([...createJobs, ...faultJobs]);
    const faultsOver = faultsEndMs(faults);
    await at(faultsOver);
    log(`the last fault is over; ${created.size} domains created, ${[...created.values()].filter((c) => c.deleted).length} deleted; ${edgeTraffic.size()} domains in the traffic`);

    // ------------------------------------------------------------ recovery
    const recoveryStart = clock();
    const expectedReady = plan.filter((p) => p.dns === 'correct' && p.deleteAtMs === null);
    let lastProgress = '';
    let settled = false;
    while (clock() - recoveryStart < options.recoveryTimeoutMs) {
      const readyNow = new Set<string>();
      for (const app of apps) for (const domain of (await listDomains(api, 0, app, 'status=ready')) ?? []) readyNow.add(domain.hostname);
      const notReady = expectedReady.filter((p) => !readyNow.has(p.hostname));
      const outbox = await unpublished();
      const deliveries = await pendingOf("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'");
      const processes = await allReady();
      const progress = `${expectedReady.length - notReady.length}/${expectedReady.length} ready, ${outbox} outbox rows unpublished, ${deliveries} deliveries pending, processes ${processes ? 'all ready' : 'not all ready'}`;
      if (progress !== lastProgress) log(`recovery: ${progress}`);
      lastProgress = progress;
      if (notReady.length === 0 && outbox === 0 && deliveries === 0 && processes) {
        settled = true;
        break;
      }
      await sleep(2_000);
    }
    figures.recoveredAfterLastFaultMs = settled ? clock() - recoveryStart : null;
    log(settled ? `settled ${((clock() - recoveryStart) / 1000).toFixed(1)} s after the last fault` : `NOT settled within ${options.recoveryTimeoutMs / 1000} s after the last fault`);
    // Traffic keeps running until here: it covers the recovery too.
    polling = false;
    sampling = false;
    await readyPoller;
    await sampler;
    await edgeTraffic.stop();

    // ------------------------------------------------------------ observations
    const finalDomains = new Map<string, { status: string; checks: ObservedDomain['checks'] }>();
    for (const app of apps) {
      // Either replica; a few tries, should one be restarting.
      let all: DomainBody[] | null = null;
      for (let attempt = 0; all === null && attempt < 10; attempt++) {
        all = await listDomains(api, attempt, app, 'include_deleted=true');
        if (all === null) await sleep(1_000);
      }
      for (const domain of all ?? []) finalDomains.set(domain.hostname, domain);
    }
    const served = new Map<string, Array<string | null>>();
    const probeList = plan.filter((p) => p.dns === 'correct' && p.deleteAtMs === null);
    await inBatches(probeList, 8, async (p) => {
      served.set(p.hostname, await Promise.all(d.edgeHttpsPorts.map((port) => finalProbe(port, p.hostname, d.pebbleRoot))));
    });
    const observed: ObservedDomain[] = plan.map((p) => {
      const domain = finalDomains.get(p.hostname);
      return {
        hostname: p.hostname, dns: p.dns, deleted: p.deleteAtMs !== null, status: domain?.status ?? null, checks: domain?.checks ?? [],
        edges: served.get(p.hostname) ?? d.edgeHttpsPorts.map(() => 'not probed'),
      };
    });
    const domainsResult = evaluateDomains(observed);
    domainsResult.problems.push(...workProblems);
    domainsResult.ok = domainsResult.problems.length === 0;

    const appIds = new Map(apps.map((a) => [a.id, a.slug]));
    const emitted = (await pool.query<{ payload: string }>('SELECT payload FROM outbox WHERE routing_key = $1', [ROUTING_KEYS.eventEmitted])).rows.map((row) =>
      JSON.parse(row.payload) as { event_id: string; application_id: string; type: string; created_at: string; data?: { domain?: { hostname?: string } } });
    const events = emitted.map((payload) => ({ id: payload.event_id, application: appIds.get(payload.application_id) ?? payload.application_id }));
    const domainEvents: DomainEventRecord[] = emitted.map((payload) => ({
      id: payload.event_id, type: payload.type, hostname: payload.data?.domain?.hostname ?? '?', atMs: Date.parse(payload.created_at) - startedWallMs,
    }));
    writeFileSync(join(runDir, 'domain-events.json'), JSON.stringify(domainEvents.filter((e) => e.type !== 'domain.ready'), null, 1));
    const webhooks = evaluateWebhooks(events, apps.map((a) => ({ application: a.slug, receiver: a.receiver.name })), receivers.flatMap((r) => r.received));
    figures.webhookDuplicates = webhooks.duplicates;
    figures.webhookRequests = receivers.flatMap((r) => r.received).length;
    figures.events = events.length;
    const badSignatures = receivers.flatMap((r) => r.received.filter((x) => !x.verified).map((x) => `${r.name} ${x.eventId}: ${x.problem}`));
    if (badSignatures.length > 0) writeFileSync(join(runDir, 'bad-signatures.txt'), badSignatures.join('\n'));

    const recoveryState: RecoveryState = {
      unpublishedOutbox: (await unpublished()) ?? -1,
      setAsideOutbox: (await pendingOf('SELECT count(*) AS n FROM outbox WHERE set_aside_at IS NOT NULL')) ?? -1,
      deadLetterQueues: (await d.rabbit.queues()).filter((q) => q.queue.endsWith('.dead')),
      pendingDeliveries: (await pendingOf("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'")) ?? -1,
    };

    const orders = classifyOrders(d.acme.forwarded);
    const ordersResult = evaluateOrders(orders, plan.map((p) => p.hostname));
    writeFileSync(join(runDir, 'acme-orders.json'), JSON.stringify(orders, null, 1));

    const faultWindow = { fromMs: Math.min(...faults.map((f) => f.atMs)), toMs: faultsOver };
    const availability = evaluateAvailability(edgeTraffic.samples, faultWindow, postgresWindow);
    const retried = edgeTraffic.samples.filter((s) => s.retried);
    figures.traffic = {
      sent: edgeTraffic.samples.length,
      ok: edgeTraffic.samples.filter((s) => s.ok).length,
      duringFaults: availability.outside,
      inPostgresWindow: availability.inPostgresWindow,
      sentAgainToTheOtherEdge: retried.length,
      failures: countBy(edgeTraffic.samples.filter((s) => !s.ok).map((s) => s.problem ?? 'unknown')),
    };
    writeFileSync(join(runDir, 'traffic-failures.json'), JSON.stringify(edgeTraffic.samples.filter((s) => !s.ok || s.retried), null, 1));

    const apiResult = evaluateApiAnswers(api.answers, postgresWindow);
    figures.api = { requests: api.answers.length, unanswered: api.answers.filter((a) => a.status === 0).length, statuses: countBy(api.answers.map((a) => String(a.status))) };

    const idempotency: InvariantResult = {
      name: 'idempotency: a create sent twice with one Idempotency-Key makes one domain',
      ok: idempotencyProblems.length === 0,
      summary: `${plan.filter((p) => p.idempotency !== 'none').length} creates with a key, ${plan.filter((p) => p.idempotency === 'key-twice').length} of them sent twice at once to both replicas`,
      problems: idempotencyProblems,
    };
    figures.kills = d.supervisor.kills.map((k) => ({ ...k }));
    const hosts = new Map<string, number>();
    for (const o of orders) hosts.set(o.hostname, (hosts.get(o.hostname) ?? 0) + 1);
    figures.orders = {
      total: orders.length, valid: orders.filter((o) => o.outcome === 'valid').length, invalid: orders.filter((o) => o.outcome === 'invalid').length,
      unfinished: orders.filter((o) => o.outcome === 'unfinished').length, reordered: [...hosts.values()].filter((n) => n > 1).length,
    };

    const accepted = new Set(receivers.flatMap((r) => r.received.filter((x) => x.verified && x.status >= 200 && x.status < 300).map((x) => x.eventId)));
    writeFileSync(join(runDir, 'live-faults.json'), JSON.stringify({ servfails, servfailsSkipped, originOutage, breaks, streaksSampled, sampled }, null, 1));
    const transient = evaluateLiveDomains({
      domains: observed, events: domainEvents, servfails, servfailsSkipped, origin: originOutage, breaks, sampled, streaksSampled, graceMs: OUTAGE_GRACE_MS,
    });
    const conclusive = evaluateBreaks({ breaks, events: domainEvents, accepted, domains: observed, sampled, streaksSampled });
    figures.liveFaults = liveFaultFigures(servfails, servfailsSkipped, originOutage, breaks, domainEvents);

    const results: Record<InvariantKey, InvariantResult> = {
      domains: domainsResult,
      transient,
      conclusive,
      webhooks: webhooks.result,
      recovery: evaluateRecovery(recoveryState),
      orders: ordersResult,
      availability: availability.result,
      api: apiResult,
      idempotency,
      processes: evaluateProcesses(d.supervisor.exits),
    };
    const table = invariantTable(INVARIANTS.map((k) => results[k]));
    const durationMs = Date.now() - startedAt;
    figures.durationMs = durationMs;
    figures.verdicts = INVARIANTS.map((k) => ({ name: results[k].name, ok: results[k].ok, summary: results[k].summary }));
    writeFileSync(join(runDir, 'figures.json'), JSON.stringify(figures, null, 1));
    writeFileSync(join(runDir, 'figures.md'), figuresMarkdown(figures));
    writeFileSync(join(ROOT, 'test-results', 'system', 'latest.json'), JSON.stringify({ runDir, figures, results }, null, 1));
    log(`invariants (seed ${seed}):\n${table}`);
    for (const k of INVARIANTS) {
      const r = results[k];
      if (!r.ok) log(`${k} FAILED:\n  ${r.problems.slice(0, 30).join('\n  ')}`);
    }
    return { seed, results, table, figures, durationMs, runDir };
  } finally {
    await traffic?.stop().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await deployment?.stop();
    for (const r of receivers) await r.close();
    for (const o of origins) await o.close();
    log(`teardown done, ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all`);
  }
}

// ---------------------------------------------------------------- steps

async function setUpApplication(api: ApiClients, d: Deployment, index: number, slug: string, receiver: Receiver, origin: Origin): Promise<App> {
  const op = async <T>(method: string, path: string, body: unknown, expected: number): Promise<T> => {
    const r = await api.call<T>(index, method, `/operator/v1${path}`, { token: d.operatorToken, body });
    if (r.status !== expected) throw new Error(`${method} ${path}: ${r.status} ${r.text || r.error}`);
    return r.body;
  };
  await op('POST', '/applications', { slug, name: `Tenant ${index}`, limits: APP_LIMITS }, 201);
  const credential = await op<{ secret: string }>('POST', `/applications/${slug}/credentials`, {}, 201);
  const registered = await op<{ id: string }>('POST', `/applications/${slug}/origins`, { url: origin.url, health_path: HEALTH_PATH }, 201);
  await op('POST', `/applications/${slug}/origins/${registered.id}/verify`, {}, 200);
  await op('POST', `/applications/${slug}/origins/${registered.id}/activate`, {}, 200);
  // Two applications sign with their own assertion key, the third with the deployment key.
  if (index < 2) {
    const key = await op<{ kid: string; secret: string }>('POST', `/applications/${slug}/assertion-keys`, {}, 201);
    origin.key = { kid: key.kid, secret: key.secret };
  } else {
    origin.key = d.deploymentKey;
  }
  const subscription = await api.call<{ id: string; secret: string }>(index, 'POST', '/v1/webhooks', { token: credential.secret, body: { url: receiver.url, events: EVENTS } });
  if (subscription.status !== 201) throw new Error(`POST /v1/webhooks: ${subscription.status} ${subscription.text}`);
  receiver.secret = subscription.body.secret;
  const row = await queryOne<{ id: string }>(d.pg.url, 'SELECT id FROM applications WHERE slug = $1 AND deleted_at IS NULL', [slug]);
  if (!row) throw new Error(`application ${slug} not in the database`);
  return { index, slug, key: credential.secret, id: row.id, receiver, origin, subscriptionId: subscription.body.id };
}

async function queryOne<T extends object>(url: string, sql: string, params: unknown[]): Promise<T | null> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    return (await pool.query<T>(sql, params)).rows[0] ?? null;
  } finally {
    await pool.end();
  }
}

interface DomainBody {
  id: string;
  hostname: string;
  status: string;
  dns_records: Array<{ name: string; type: string; value: string }>;
  checks: Array<{ type: string; status: string; error_code: string | null }>;
}

/** POST /v1/domains until it is created, as a careful client would: another replica after a failure, the key's replay, a lookup by reference. */
async function createDomain(api: ApiClients, app: App, p: PlannedDomain, seed: number, problems: string[]): Promise<DomainBody | null> {
  const body = { hostname: p.hostname, reference: p.reference, metadata: { plan: 'system', index: p.index } };
  const headers: Record<string, string> = p.idempotency === 'none' ? {} : { 'idempotency-key': `create-${seed}-${p.index}` };
  const once = async (replica: number): Promise<DomainBody | null> => {
    for (let attempt = 0; attempt < 90; attempt++) {
      const r = await api.call<DomainBody>(replica + attempt, 'POST', '/v1/domains', { token: app.key, body, headers });
      if (r.status === 201) return r.body;
      if (r.status === 200 && r.headers?.get('idempotent-replayed') === 'true') return r.body;
      const code = (r.body as unknown as { error?: { code?: string } } | null)?.error?.code;
      if (r.status === 409 && code === 'hostname_already_claimed' && p.idempotency === 'none') {
        // An earlier attempt was created before its answer was lost: find it by its reference.
        const found = await api.call<{ items: DomainBody[] }>(replica + attempt + 1, 'GET', `/v1/domains?reference=${encodeURIComponent(p.reference)}`, { token: app.key });
        const mine = found.status === 200 ? found.body.items.find((x) => x.hostname === p.hostname) : undefined;
        if (mine) return mine;
      }
      if (r.status !== 0 && r.status < 500 && code !== 'idempotency_request_in_progress' && r.status !== 429) {
        problems.push(`${p.hostname}: create answered ${r.status} ${r.text.slice(0, 200)}`);
        return null;
      }
      await sleep(1_000);
    }
    return null;
  };
  if (p.idempotency !== 'key-twice') return once(p.api);
  // The same request to both replicas at once: one domain, the same answer body.
  const [first, second] = await Promise.all([once(p.api), once(p.api + 1)]);
  if (first && second && first.id !== second.id) problems.push(`${p.hostname}: the key gave two domains, ${first.id} and ${second.id}`);
  if (!first || !second) problems.push(`${p.hostname}: one of the two requests with the key did not succeed`);
  return first ?? second;
}

async function publishDns(d: Deployment, p: PlannedDomain, records: DomainBody['dns_records']): Promise<void> {
  for (const record of records) {
    if (record.type === 'TXT' && p.dns !== 'no-txt') {
      await d.dns.setTxt(record.name, p.dns === 'wrong-txt' ? `custom-domain-verify=${'0'.repeat(64)}` : record.value);
    }
    if (record.type === 'CNAME' && p.dns !== 'no-cname') {
      await d.dns.setCname(record.name, p.dns === 'wrong-cname' ? 'elsewhere.example.org' : EDGE_TARGET);
    }
  }
}

async function deleteDomain(api: ApiClients, app: App, p: PlannedDomain, id: string): Promise<boolean> {
  for (let attempt = 0; attempt < 90; attempt++) {
    const r = await api.call(p.deleteApi + attempt, 'DELETE', `/v1/domains/${id}`, { token: app.key });
    if (r.status === 202) return true;
    if (r.status !== 0 && r.status < 500) return false;
    await sleep(1_000);
  }
  return false;
}

/** Every domain of the application matching `query` (paged), or null when the API did not answer. */
async function listDomains(api: ApiClients, replica: number, app: App, query: string): Promise<DomainBody[] | null> {
  const all: DomainBody[] = [];
  for (let offset = 0; ; offset += 200) {
    const r = await api.call<{ items: DomainBody[] }>(replica, 'GET', `/v1/domains?${query}&limit=200&offset=${offset}`, { token: app.key });
    if (r.status !== 200) return null;
    all.push(...r.body.items);
    if (r.body.items.length < 200) return all;
  }
}

/** A fresh TLS connection to one edge trusting only Pebble's root: null when the origin's 200 came back. */
function finalProbe(port: number, hostname: string, root: string): Promise<string | null> {
  return new Promise((resolve) => {
    const path = '/final';
    const req = https.request({ host: '127.0.0.1', port, path, servername: hostname, headers: { host: hostname }, ca: root, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve(res.statusCode === 200 && body === `ok ${hostname} ${path}` ? null : `status ${res.statusCode}: ${body.slice(0, 100)}`);
      });
      res.on('error', (err) => resolve(err.message));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (err) => resolve(err.message));
    req.end();
  });
}

async function inBatches<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await work(items[next++] as T);
  }));
}

function countBy(values: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
