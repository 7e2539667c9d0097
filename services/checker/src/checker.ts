// The checker service: consumes `domain.check.requested` (queue `checker`,
// competing consumers across replicas) and runs a scheduler that leases due
// domains, so two replicas never check one domain at the same time. The work
// on leased domains is the check pipeline's.
import { randomUUID } from 'node:crypto';
import { CHECK_REASONS, EDGE_CHECK_SPACING_MS, errorMessage, KeySpacing, QUEUES, ROUTING_KEYS, WakeableLoop } from '@cds/core';
import { requiredSetting, type Config } from '@cds/config';
import type { DataStore } from '@cds/data';
import { trustedCasWithBundle } from '@cds/outbound';
import type { Logger } from '@cds/logging';
import type { Bus, ReceivedMessage, Subscription } from '@cds/messaging';
import { meteredDeadLetters, meteredHandler } from '@cds/metrics';
import { DnsChallengeWriter } from './certificates/dns-challenge-writer';
import type { CertificateIssuer } from './certificates/issuer';
import { FallbackAcmeIssuer } from './certificates/fallback-acme-issuer';
import { InternalCa } from './certificates/internal-ca';
import { LEASE_ROUNDS } from './check-lanes';
import { CheckPipeline } from './check-pipeline';
import { countDirectoryFailure, countDirectoryOrder, initCheckerMetrics, initDirectoryMetrics, watchSeenCertificates } from './checker-metrics';
import { createDnsLookups } from './dns-lookups';
import { DnsUpdateClient } from './dns-update';
import { edgeRequestUseless } from './edge-check-requests';

/** The durable queue of `domain.check.requested`, shared by checker replicas. */
export const CHECKER_QUEUE = QUEUES.checker;

export interface CheckerDeps {
  config: Config;
  logger: Logger;
  store: DataStore;
  bus: Bus;
  now?: () => Date;
  /** Domains checked at once (default 32). */
  concurrency?: number;
  /** Certificates issued at once (default 4). */
  certificateConcurrency?: number;
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
  /** Stops consuming and scheduling, gives back the domains not started, waits for the steps under way. */
  stop(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 32;
const DEFAULT_CERTIFICATE_CONCURRENCY = 4;
const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_LEASE_MS = 30_000;
const CLEAN_UP_INTERVAL_MS = 5000;
const CHALLENGE_MAX_AGE_MS = 3600_000;

/** ACME_DNS_ZONE with its update server and key: the writer of delegated DNS-01 challenges (DECISIONS §13); null when unset. */
export function dnsChallengeWriter(config: Pick<Config, 'acmeDnsZone' | 'acmeDnsUpdateServer' | 'acmeDnsTsigKey'>): DnsChallengeWriter | null {
  const { acmeDnsZone: zone, acmeDnsUpdateServer: server, acmeDnsTsigKey: key } = config;
  return zone && server && key ? new DnsChallengeWriter(new DnsUpdateClient({ server, zone, key })) : null;
}

function createIssuer(deps: CheckerDeps): CertificateIssuer {
  if (deps.issuer) return deps.issuer;
  const { config, store, now, logger } = deps;
  if (config.certIssuer === 'internal') return new InternalCa(store, config.dataEncryptionKeys, now);
  const issuer = new FallbackAcmeIssuer({
    store, encryptionKey: config.dataEncryptionKeys, directories: config.acmeDirectories, email: config.acmeEmail,
    caBundle: config.acmeCaBundle, dnsServers: config.dnsServers, ...(now ? { now } : {}), dnsChallenges: dnsChallengeWriter(config),
    orderBudget: { perHour: config.acmeOrdersPerHour, perApplicationPerHour: config.acmeOrdersPerApplicationPerHour },
    onReplacesRefused: (hostname, err) => logger.warn('the CA refused the renewal order naming the replaced certificate; ordered again without it', {
      hostname, error: errorMessage(err),
    }),
    onOrderResumed: (hostname, status) => logger.warn('an earlier try was cut short after the CA accepted its order: carrying that order on instead of ordering again', { hostname, order_status: status }),
    onOrderDiscarded: (hostname, reason) => logger.warn('a saved ACME order was discarded; the next order for the hostname is a new one', { hostname, reason }),
    onRenewalInfoFailed: (certId, err) => logger.warn('the renewal window could not be fetched; the certificate is renewed once two thirds of its lifetime have passed until the next try', {
      cert_id: certId, error: errorMessage(err),
    }),
    onDirectorySetAside: (failure, until) => {
      countDirectoryFailure(failure.directoryUrl, failure.reason);
      logger.warn('an ACME directory failed at the CA\'s side: set aside, orders go to the next directory meanwhile', {
        directory: failure.directoryUrl, reason: failure.reason, until: until.toISOString(), error: failure.message,
      });
    },
    onDirectoryOrder: countDirectoryOrder,
  });
  const clock = now ?? (() => new Date());
  initDirectoryMetrics(issuer.directoryUrls, (directory) => issuer.setAside.isSetAside(directory, clock()));
  return issuer;
}

export async function startChecker(deps: CheckerDeps): Promise<Checker> {
  const { config, logger, store, bus } = deps;
  const now = deps.now ?? (() => new Date());
  const concurrency = deps.concurrency ?? DEFAULT_CONCURRENCY;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const checkerId = deps.checkerId ?? randomUUID();
  // DECISIONS §13: one run per domain per spacing for the edges' requests, however many edges ask.
  const edgeSpacing = new KeySpacing({ spacingMs: EDGE_CHECK_SPACING_MS });
  initCheckerMetrics();
  const seen = watchSeenCertificates(2 * config.checkIntervalLive + leaseMs, now);
  let stopped = false;

  const issuer = createIssuer(deps);
  await issuer.prepare?.();
  const pipeline = new CheckPipeline({
    store,
    dns: createDnsLookups(config.dnsServers),
    issuer,
    acmeDirectories: config.acmeDirectories.map((directory) => directory.url),
    origin: {
      encryptionKey: config.dataEncryptionKeys,
      deploymentKey: { kid: config.assertionDeploymentKid, secret: requiredSetting(config, 'assertionDeploymentKey') },
      ca: trustedCasWithBundle(config.originCaBundle),
    },
    edgeTarget: config.edgeTarget,
    edgeAddresses: config.edgeAddresses,
    acmeDnsZone: config.acmeDnsZone,
    encryptionKey: config.dataEncryptionKeys,
    schedule: { pending: config.checkSchedulePending, live: config.checkIntervalLive, confirm: config.checkScheduleConfirm, attention: config.checkScheduleAttention },
    confirmation: { confirmations: config.checkConfirmations, outageGraceMs: config.checkOutageGrace },
    now,
    logger,
    checkerId,
    leaseMs,
    concurrency,
    certificateConcurrency: deps.certificateConcurrency ?? DEFAULT_CERTIFICATE_CONCURRENCY,
    ...(deps.afterCommit ? { afterCommit: deps.afterCommit } : {}),
    seenCertificates: seen.tracker,
  }, () => kick());

  // Long runs (a certificate order, a queue of certificates) keep their leases; a crashed checker's lapse.
  const heartbeat = setInterval(() => {
    if (pipeline.held.size === 0) return;
    const until = new Date(now().getTime() + leaseMs);
    store.run((r) => r.checkRuns.extend([...pipeline.held], checkerId, until)).catch((err: unknown) => {
      logger.warn('lease heartbeat failed', { error: errorMessage(err) });
    });
  }, Math.max(leaseMs / 3, 50));
  heartbeat.unref();

  // Leasing whenever a check finishes would lease a domain or two at a time:
  // the scheduler waits until LEASE_ROUNDS rounds' worth of room is free.
  const roomToLease = () => pipeline.capacity() >= LEASE_ROUNDS * concurrency;

  /** Leases due domains while the pipeline has room (it leases ahead of the checks running). */
  const pollDue = async () => {
    for (let full = true; full && !stopped && roomToLease();) {
      const limit = pipeline.capacity();
      const at = now();
      const leased = await store.run((r) => r.checkRuns.claimDue(at, limit, checkerId, new Date(at.getTime() + leaseMs)));
      pipeline.admit(leased).catch((err: unknown) => logger.error('check run failed', { error: errorMessage(err) }));
      full = leased.length === limit;
      pipeline.moreDue(full);
    }
    await cleanUp();
  };

  // One pass at a time: on a schedule, and at once when a check ends or one is requested (kick).
  const scheduler = new WakeableLoop({
    pass: pollDue,
    intervalMs: deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    onFailure: (err) => logger.error('check scheduler failed', { error: errorMessage(err) }),
  });

  // Deleted domains' certificates and ACME challenges, and abandoned challenges, go in the background.
  let lastCleanUp = 0;
  const cleanUp = async () => {
    if (Date.now() - lastCleanUp < CLEAN_UP_INTERVAL_MS) return;
    lastCleanUp = Date.now();
    await store.run((r) => r.certificates.deleteOfDeletedDomains());
    await store.run((r) => r.acmeChallenges.deleteWithoutLiveDomain());
    await store.run((r) => r.acmeChallenges.deleteOlderThan(new Date(now().getTime() - CHALLENGE_MAX_AGE_MS)));
  };

  function kick(): void {
    if (!stopped && roomToLease()) scheduler.kick();
  }

  const subscription: Subscription = await bus.subscribe({
    queue: CHECKER_QUEUE,
    routingKeys: [ROUTING_KEYS.domainCheckRequested],
    prefetch: concurrency,
    onDeadLetter: meteredDeadLetters(CHECKER_QUEUE),
    handler: meteredHandler(CHECKER_QUEUE, async (message: ReceivedMessage) => {
      if (message.routingKey !== ROUTING_KEYS.domainCheckRequested || stopped) return;
      const at = now();
      const fromEdge = message.payload.reason === CHECK_REASONS.edge;
      const leased = await store.run((r) => r.checkRuns.claim(message.payload.domain_id, at, checkerId, new Date(at.getTime() + leaseMs)));
      // Not taken: deleted, or another run holds it; a recheck also set next_check_at, so the scheduler follows up.
      // An edge's request not taken does not count against its spacing: the edge asks again.
      if (!leased) return;
      // An edge's request for a domain no longer pending_dns, or one another edge's request had run for a moment ago: given back unrun.
      if (fromEdge && (edgeRequestUseless(leased) || !edgeSpacing.take(leased.domain.id, at.getTime()))) {
        await store.run((r) => r.checkRuns.release([leased.domain.id], checkerId));
        return;
      }
      await pipeline.admit([leased], message.payload.reason);
    }, {
      // The outbox row's time travels with the message; a redelivery's lag was counted the first time.
      writtenAt: (message) => (message.redelivered ? null : message.writtenAt),
    }),
  });
  scheduler.wakeIn(deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  kick();

  return {
    checkerId,
    kick,
    async stop() {
      stopped = true;
      const scheduling = scheduler.stop();
      clearInterval(heartbeat);
      await subscription.cancel();
      await scheduling;
      await pipeline.stop();
      seen.unwatch();
    },
  };
}
