// The checker service: consumes `domain.check.requested` (queue `checker`,
// competing consumers across replicas) and runs a scheduler that leases due
// domains, so two replicas never check one domain at the same time.
import { randomUUID } from 'node:crypto';
import type { Config } from '@cds/config';
import type { DataStore, LeasedDomain } from '@cds/data';
import { trustedCasWithBundle } from '@cds/http';
import type { Bus, Delivery, MessagingLogger, Subscription } from '@cds/messaging';
import { meteredDeadLetters, meteredHandler } from '@cds/metrics';
import type { CertificateIssuer } from './certificates/issuer';
import { AcmeIssuer } from './certificates/acme-issuer';
import { InternalCa } from './certificates/internal-ca';
import { checkDomain, type CheckDomainDeps } from './check-domain';
import { initCheckerMetrics, watchSeenCertificates } from './checker-metrics';
import { createDnsLookups } from './dns-lookups';

/** The durable queue of `domain.check.requested`, shared by checker replicas. */
export const CHECKER_QUEUE = 'checker';

export interface CheckerDeps {
  config: Config;
  logger: MessagingLogger;
  store: DataStore;
  bus: Bus;
  now?: () => Date;
  /** Checks running at once (default 32). */
  concurrency?: number;
  /** How often the scheduler looks for due domains (default 1000 ms). */
  pollIntervalMs?: number;
  /** How long a lease holds without renewal; a crashed checker's domains are taken over after it (default 30 s). */
  leaseMs?: number;
  /** Names this replica in the lease column (default a random uuid). */
  checkerId?: string;
  /** Called after a check run commits (wakes the outbox relay). */
  afterCommit?: () => void;
  /** Overrides the issuer CERT_ISSUER names. */
  issuer?: CertificateIssuer;
}

export interface Checker {
  readonly checkerId: string;
  /** Looks for due domains now instead of at the next poll. */
  kick(): void;
  /** Stops consuming and scheduling, waits for the running checks. */
  stop(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 32;
const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_LEASE_MS = 30_000;
const CLEAN_UP_INTERVAL_MS = 5000;
const CHALLENGE_MAX_AGE_MS = 3600_000;

function createIssuer(deps: CheckerDeps): CertificateIssuer {
  if (deps.issuer) return deps.issuer;
  const { config, store, now } = deps;
  if (config.certIssuer === 'internal') return new InternalCa(store, config.dataEncryptionKey, now);
  return new AcmeIssuer({
    store, encryptionKey: config.dataEncryptionKey, directoryUrl: config.acmeDirectoryUrl, email: config.acmeEmail,
    caBundle: config.acmeCaBundle, dnsServers: config.dnsServers, ...(now ? { now } : {}),
  });
}

export async function startChecker(deps: CheckerDeps): Promise<Checker> {
  const { config, logger, store, bus } = deps;
  const now = deps.now ?? (() => new Date());
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const checkerId = deps.checkerId ?? randomUUID();
  initCheckerMetrics();
  const seen = watchSeenCertificates(2 * config.checkIntervalLive + leaseMs, now);
  const run: CheckDomainDeps = {
    store,
    dns: createDnsLookups(config.dnsServers),
    issuer: createIssuer(deps),
    origin: {
      encryptionKey: config.dataEncryptionKey,
      deploymentKey: { kid: config.assertionDeploymentKid, secret: config.assertionDeploymentKey },
      ca: trustedCasWithBundle(config.originCaBundle),
    },
    edgeTarget: config.edgeTarget,
    encryptionKey: config.dataEncryptionKey,
    schedulePending: config.checkSchedulePending,
    intervalLive: config.checkIntervalLive,
    now,
    logger,
    seenCertificates: seen.tracker,
  };

  const running = new Set<Promise<void>>();
  /** Domains whose check runs here now, for the lease heartbeat. */
  const inFlight = new Set<string>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let polling = false;
  let pollAgain = false;

  const track = (work: Promise<void>) => {
    running.add(work);
    void work.finally(() => {
      running.delete(work);
      if (!stopped && running.size < concurrency) kick();
    });
  };

  const runLeased = async (leased: LeasedDomain) => {
    inFlight.add(leased.id);
    try {
      const result = await checkDomain(run, leased, checkerId);
      if (result === 'checked') deps.afterCommit?.();
    } catch (err) {
      logger.error('check run failed', { domain_id: leased.id, error: err instanceof Error ? err.message : String(err) });
      await store.run((r) => r.checkRuns.release(leased.id, checkerId)).catch(() => undefined);
    } finally {
      inFlight.delete(leased.id);
    }
  };

  // Runs longer than a lease (an ACME order) keep theirs; a crashed checker's leases lapse.
  const heartbeat = setInterval(() => {
    if (inFlight.size === 0) return;
    const until = new Date(now().getTime() + leaseMs);
    store.run((r) => r.checkRuns.extend([...inFlight], checkerId, until)).catch((err: unknown) => {
      logger.warn('lease heartbeat failed', { error: err instanceof Error ? err.message : String(err) });
    });
  }, Math.max(leaseMs / 3, 50));
  heartbeat.unref();

  const poll = async () => {
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    try {
      do {
        pollAgain = false;
        const free = concurrency - running.size;
        if (stopped || free <= 0) break;
        const at = now();
        const leased = await store.run((r) => r.checkRuns.claimDue(at, free, checkerId, new Date(at.getTime() + leaseMs)));
        for (const domain of leased) track(runLeased(domain));
        if (leased.length === free) pollAgain = true;
      } while (pollAgain && !stopped);
      await cleanUp();
    } catch (err) {
      logger.error('check scheduler failed', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      polling = false;
    }
  };

  // Deleted domains' certificates and abandoned ACME challenges go in the background.
  let lastCleanUp = 0;
  const cleanUp = async () => {
    if (Date.now() - lastCleanUp < CLEAN_UP_INTERVAL_MS) return;
    lastCleanUp = Date.now();
    await store.run((r) => r.certificates.deleteOfDeletedDomains());
    await store.run((r) => r.acmeChallenges.deleteOlderThan(new Date(now().getTime() - CHALLENGE_MAX_AGE_MS)));
  };

  function kick(): void {
    if (!stopped) void poll();
  }

  const schedule = () => {
    timer = setTimeout(() => {
      void poll().finally(() => {
        if (!stopped) schedule();
      });
    }, deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  };

  const subscription: Subscription = await bus.subscribe({
    queue: CHECKER_QUEUE,
    routingKeys: ['domain.check.requested'],
    prefetch: concurrency,
    // The message carries no creation time: the checker's consumer counts outcomes, no lag.
    onDeadLetter: meteredDeadLetters(CHECKER_QUEUE),
    handler: meteredHandler(CHECKER_QUEUE, async (message: Delivery) => {
      if (message.routingKey !== 'domain.check.requested' || stopped) return;
      const at = now();
      const leased = await store.run((r) => r.checkRuns.claim(message.payload.domain_id, at, checkerId, new Date(at.getTime() + leaseMs)));
      // Not taken: deleted, or another run holds it; a recheck also set next_check_at, so the scheduler follows up.
      if (leased) await runLeased(leased);
    }, {
      // The outbox row's time travels with the message; a redelivery's lag was counted the first time.
      writtenAt: (message) => (message.redelivered ? null : message.writtenAt),
    }),
  });
  schedule();
  kick();

  return {
    checkerId,
    kick,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      clearInterval(heartbeat);
      await subscription.cancel();
      await Promise.allSettled([...running]);
      seen.unwatch();
    },
  };
}
