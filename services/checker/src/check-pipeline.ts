// The checker's work on the domains it has leased: for each, a first step that
// checks DNS (ownership, routing) and the origin and judges the certificate,
// and, when the certificate must be issued, a second step that issues it.
// When each step runs is the lanes' (check-lanes.ts): certificates wait in
// turns, renewals first and the applications in turn.
// Every step is written with the check rows, the status transition and the
// outbox rows in one transaction, many domains per transaction (group
// commit). A domain stays leased until its last step is written.
import {
  acmeChallengeDelegated, acmeChallengeName, acmeDelegationTarget,
  errorMessage, CHECK_TYPES, encryptSecret, SEAL_PURPOSES, evaluateCertificate, evaluateOrigin, evaluateOwnership, challengeRecordName, GroupCommit, renewalDue, runTrigger,
  type CheckOutcome, type CheckReason, type ConfirmationSettings, type DataKeys, type LiveDomainStatus, type OriginObservation,
} from '@cds/core';
import { isDatabaseUnavailable, type CertificateRow, type CheckRunRecord, type DataStore, type LeasedDomain } from '@cds/data';
import type { Logger } from '@cds/logging';
import type { ExpiryTracker } from '@cds/metrics';
import { planCertificate, reissueReason } from './certificate-plan';
import { AcmeBudgetWait } from './certificates/acme-order-budget';
import { IssuanceError, type CertificateIssuer } from './certificates/issuer';
import { CheckLanes, LEASE_ROUNDS } from './check-lanes';
import { countAcmeOrder, countBudgetRefusal, countChecks, countConfirmation, observeCheckDuration, timedCheck } from './checker-metrics';
import type { DnsLookups } from './dns-lookups';
import { loadOriginContext, observeOrigin, type OriginContext, type OriginProbeSettings } from './observe-origin';
import { observeRouting } from './observe-routing';
import { keepTrying } from './keep-trying';
import { longestStreak, recordStep, type Schedule, type Step } from './run-step';

export interface PipelineOptions {
  store: DataStore;
  dns: DnsLookups;
  issuer: CertificateIssuer;
  /** ACME_DIRECTORY_URL's directories: an `acme` certificate from another is issued again. */
  acmeDirectories: readonly string[];
  origin: OriginProbeSettings;
  edgeTarget: string;
  /** EDGE_ADDRESSES: apex domains are routed by A and AAAA records to these (DECISIONS §12). */
  edgeAddresses: readonly string[];
  /** ACME_DNS_ZONE: the certificate CNAME in the event's resource (DECISIONS §13). */
  acmeDnsZone: string | null;
  encryptionKey: DataKeys;
  schedule: Schedule;
  confirmation: ConfirmationSettings;
  now: () => Date;
  logger: Logger;
  /** Names this checker in the lease column. */
  checkerId: string;
  /** How long a lease holds without renewal. */
  leaseMs: number;
  /** Domains checked at once. */
  concurrency: number;
  /** Certificates issued at once. */
  certificateConcurrency: number;
  /** Called after a step with outbox rows committed (wakes the outbox relay). */
  afterCommit?: () => void;
  /** Where the notAfter of each checked domain's certificate goes (the expiry gauge). */
  seenCertificates?: ExpiryTracker;
}

/**
 * How long the step carrying a newly issued certificate is tried again while
 * the database cannot be reached; the lease heartbeat keeps the domain
 * meanwhile (a lease lost on the way makes the write a no-op).
 */
const ISSUED_WRITE_RETRY_MS = 60_000;
/** Steps written together (one statement on PostgreSQL, one transaction on SQLite) at most. */
const MAX_RECORD_BATCH = 200;
/**
 * A write waits up to this long for a lease's worth of steps to join it: a
 * statement costs the checker and the database about as much for 10 steps as
 * for 100.
 */
const RECORD_GATHER_MS = 50;
/** Certificates waiting to be issued: renewals go first (DECISIONS §10), then the applications' first certificates in turn. */
const ISSUE_PRIORITY = { renewal: 0, first: 1 } as const;

interface Admitted {
  leased: LeasedDomain;
  /** The reason of the `domain.check.requested` message that leased it; null for the scheduler. */
  requested: CheckReason | null;
  origin: Promise<OriginContext | null>;
  /** Settles when the first step is written (or dropped). */
  recorded: () => void;
}

interface ToIssue {
  step: Step;
  checkCount: number;
  startedAt: Date;
  existing: CertificateRow | null;
  /** The domain's name in ACME_DNS_ZONE when its challenge is delegated there: DNS-01 (DECISIONS §13). */
  dns01At: string | null;
}

type Outcomes = { [T in (typeof CHECK_TYPES)[number]]: CheckOutcome<T> };

const NO_ACTIVE_ORIGIN: OriginObservation = { kind: 'no_active_origin' };

/** The origin check of a domain whose application has no active origin: nothing to probe, no promise to wait for. */
function noActiveOrigin(): OriginObservation {
  observeCheckDuration('origin', performance.now());
  return NO_ACTIVE_ORIGIN;
}

export class CheckPipeline {
  /** Every domain whose lease this checker holds, for the heartbeat. */
  readonly held = new Set<string>();
  private readonly lanes: CheckLanes<Admitted, ToIssue>;
  private readonly recorder: GroupCommit<CheckRunRecord, boolean>;

  constructor(private readonly opts: PipelineOptions, onCapacity: () => void) {
    this.lanes = new CheckLanes<Admitted, ToIssue>(
      { checks: opts.concurrency, certificates: opts.certificateConcurrency },
      {
        check: (item) => this.check(item), issue: (item) => this.issue(item), settled: onCapacity,
        issueTurn: (item) => ({ priority: item.existing ? ISSUE_PRIORITY.renewal : ISSUE_PRIORITY.first, group: item.step.domain.applicationId }),
      },
    );
    this.recorder = new GroupCommit(async (records) => {
      const written = new Set(await opts.store.run((r) => r.checkRuns.record(records, opts.checkerId)));
      if (records.some((record) => written.has(record.domainId) && record.messages.length > 0)) opts.afterCommit?.();
      return records.map((record) => written.has(record.domainId));
    }, MAX_RECORD_BATCH, { items: LEASE_ROUNDS * opts.concurrency, ms: RECORD_GATHER_MS });
  }

  /** How many more leased domains to take now (the lanes' word). */
  capacity(): number {
    return this.lanes.capacity();
  }

  /** The scheduler's word on whether more domains are due than it could lease: certificates wait for them. */
  moreDue(more: boolean): void {
    this.lanes.moreDue(more);
  }

  /**
   * Takes leased domains (the origins of those whose application has an active
   * one are read per application and batch); resolves when the first step of
   * each is written or dropped.
   */
  async admit(leased: LeasedDomain[], requested: CheckReason | null = null): Promise<void> {
    if (leased.length === 0) return;
    if (this.lanes.stopped) return this.giveBack(leased.map((l) => l.domain.id), null);
    // One read of the origin per application and batch.
    const origins = new Map<string, Promise<OriginContext | null>>();
    const noOrigin = Promise.resolve(null);
    const originOf = (applicationId: string) => {
      let found = origins.get(applicationId);
      if (!found) {
        found = loadOriginContext(this.opts.store, applicationId);
        found.catch(() => undefined); // awaited by each check; an unhandled copy must not crash the process
        origins.set(applicationId, found);
      }
      return found;
    };
    const admitted: Admitted[] = [];
    const done = leased.map((l) => new Promise<void>((resolve) => {
      this.held.add(l.domain.id);
      admitted.push({ leased: l, requested, origin: l.hasActiveOrigin ? originOf(l.domain.applicationId) : noOrigin, recorded: resolve });
    }));
    this.lanes.queueChecks(admitted);
    await Promise.all(done);
  }

  /** Stops taking work: domains not started are given back at once; steps under way finish. */
  async stop(): Promise<void> {
    const unstarted = this.lanes.stop();
    const ids = [...unstarted.checks.map((item) => { item.recorded(); return item.leased.domain.id; }), ...unstarted.issues.map((item) => item.step.domain.id)];
    if (ids.length > 0) await this.giveBack(ids, null);
    await this.lanes.drain();
  }

  /** The first step: DNS, origin, the certificate judged. */
  private async check(item: Admitted): Promise<void> {
    const { opts } = this;
    const { domain, checkCount } = item.leased;
    try {
      const startedAt = opts.now();
      const delegationTarget = opts.acmeDnsZone === null ? null : acmeDelegationTarget(domain.challengeToken, opts.acmeDnsZone);
      const [txt, routing, originSeen, delegation] = await Promise.all([
        timedCheck('ownership', () => opts.dns.txt(challengeRecordName(domain.hostname))),
        timedCheck('routing', () => observeRouting(opts.dns, domain.hostname, opts)),
        item.leased.hasActiveOrigin ? timedCheck('origin', async () => observeOrigin(await item.origin, domain, opts.origin, startedAt)) : noActiveOrigin(),
        delegationTarget === null ? null : opts.dns.cnameChain(acmeChallengeName(domain.hostname)),
      ]);
      const ownership = evaluateOwnership(domain.hostname, domain.challengeToken, txt);
      const dns01At = delegationTarget !== null && delegation !== null && acmeChallengeDelegated(delegation, delegationTarget) ? delegationTarget : null;
      // A certificate issued for a hostname's earlier domain is not this one's.
      const existing = item.leased.certificate?.domainId === domain.id ? item.leased.certificate : null;
      const previous = item.leased.checks.find((c) => c.type === 'certificate') ?? null;
      const planStart = performance.now();
      // Asked for, or from an issuer or directory no longer configured: issued again whatever its lifetime.
      const reissue = existing && reissueReason(existing, { issuer: opts.issuer.kind, directories: opts.acmeDirectories });
      // Only a certificate of this domain, with an issuer that knows renewal windows, waits for one.
      const window = existing && !reissue && opts.issuer.renewalWindow ? await opts.issuer.renewalWindow(existing.pemChain, existing.directoryUrl ?? null).catch(() => null) : null;
      const plan = planCertificate(ownership, routing, existing, existing !== null && (reissue !== null || renewalDue(existing, startedAt, window)), startedAt, previous, dns01At !== null);
      observeCheckDuration('certificate', planStart);
      const observed: Outcomes = { ownership, routing, certificate: plan.outcome, origin: evaluateOrigin(originSeen) };
      countChecks(plan.issue ? { ownership, routing, origin: observed.origin } : observed);
      this.seeCertificate(domain.id, plan.notAfter);

      const now = opts.now();
      const step = recordStep({
        domain, checkCount, statusRuns: item.leased.statusRuns, before: item.leased.checks, observed, startedAt, now, counted: true,
        continuesUntil: plan.issue ? new Date(now.getTime() + opts.leaseMs) : null, issued: null, schedule: opts.schedule, confirmation: opts.confirmation,
        edgeTarget: opts.edgeTarget, edgeAddresses: opts.edgeAddresses, acmeDnsZone: opts.acmeDnsZone, run: { trigger: runTrigger(item.requested, checkCount, domain.status as LiveDomainStatus, longestStreak(item.leased.checks)), statusBefore: domain.status, checks: [] },
      });
      // Written in the background: the slot goes to the next domain at once.
      this.lanes.addWrite(this.recorder.add(step.record).then(
        (written) => {
          try {
            if (!written) {
              // Deleted meanwhile, or the lease was lost: nothing of this run is kept.
              this.seeCertificate(domain.id, null);
              this.held.delete(domain.id);
            } else {
              countConfirmation(step);
              if (plan.issue) this.lanes.queueIssue({ step, checkCount, startedAt, existing, dns01At });
              else this.held.delete(domain.id);
            }
          } finally {
            item.recorded();
          }
        },
        (err: unknown) => this.giveBack([domain.id], err).then(item.recorded),
      ));
    } catch (err) {
      await this.giveBack([domain.id], err);
      item.recorded();
    }
  }

  /** The second step: the certificate issued (or refused), the status from all four checks. */
  private async issue(item: ToIssue): Promise<void> {
    const { opts } = this;
    const { domain } = item.step;
    try {
      const acme = opts.issuer.kind === 'acme';
      let outcome: CheckOutcome<'certificate'>;
      let issued: CertificateRow | null = null;
      let checkBy: Date | null = null;
      let renewalFailed: { reason: string; validUntil: Date } | null = null;
      try {
        // A renewal goes first to the directory that issued the certificate (DECISIONS §14).
        // A certificate of another issuer is replaced, not renewed: its CA is not this one.
        const replaced = item.existing?.issuer === opts.issuer.kind ? item.existing : null;
        const certificate = await timedCheck('certificate', () => opts.issuer.issue(domain.hostname, replaced?.pemChain ?? null, domain.applicationId, replaced?.directoryUrl ?? null, item.dns01At));
        if (acme) countAcmeOrder(null);
        issued = {
          hostname: domain.hostname, domainId: domain.id, issuer: opts.issuer.kind, pemChain: certificate.pemChain,
          keySealed: encryptSecret(certificate.keyPem, opts.encryptionKey, { purpose: SEAL_PURPOSES.certificateKey, id: domain.hostname }), notBefore: certificate.notBefore, notAfter: certificate.notAfter, createdAt: opts.now(),
          directoryUrl: certificate.directoryUrl ?? null,
        };
        outcome = { status: 'passing', errorCode: null, message: null };
      } catch (err) {
        // A renewal that fails or waits leaves a still valid certificate passing.
        const stillValid = item.existing ? evaluateCertificate(item.existing, opts.now()) : null;
        const kept = stillValid?.status === 'passing' ? stillValid : null;
        if (err instanceof AcmeBudgetWait) {
          // Nothing was sent to the CA: the certificate waits, saying so, and is tried again by the end of the hour at the latest.
          countBudgetRefusal(err.refusal.scope);
          opts.logger.debug('certificate waits for ACME order budget', { domain_id: domain.id, hostname: domain.hostname, scope: err.refusal.scope, ordered: err.refusal.ordered });
          outcome = kept ?? { status: 'pending', errorCode: null, message: err.message };
          checkBy = err.refusal.resetAt;
        } else {
          const code = err instanceof IssuanceError ? err.code : 'certificate_issuance_failed';
          if (acme) countAcmeOrder(code);
          const message = errorMessage(err);
          opts.logger.warn('certificate issuance failed', { domain_id: domain.id, hostname: domain.hostname, code, error: message });
          outcome = kept ?? { status: 'failing', errorCode: code, message };
          if (kept && item.existing) renewalFailed = { reason: message, validUntil: item.existing.notAfter };
        }
      }
      countChecks({ certificate: outcome });
      this.seeCertificate(domain.id, issued?.notAfter ?? item.existing?.notAfter ?? null);
      const step = recordStep({
        domain, checkCount: item.checkCount, statusRuns: item.step.statusRuns, before: item.step.checks, observed: { certificate: outcome }, startedAt: item.startedAt,
        now: opts.now(), counted: false, continuesUntil: null, checkBy, issued, renewalFailed, run: item.step.run, schedule: opts.schedule,
        confirmation: opts.confirmation, edgeTarget: opts.edgeTarget, edgeAddresses: opts.edgeAddresses, acmeDnsZone: opts.acmeDnsZone,
      });
      if (issued) {
        // The new certificate is only in memory until this write: it is tried again while the database is away for a moment.
        const stored = await keepTrying(() => this.recorder.add(step.record), {
          forMs: ISSUED_WRITE_RETRY_MS,
          // Only an unreachable database is worth waiting for; any other failure would fail the same way again.
          retryIf: isDatabaseUnavailable,
          onRetry: (err, attempt, delayMs) => opts.logger.warn('the issued certificate could not be stored yet; trying again', {
            domain_id: domain.id, hostname: domain.hostname, attempt, delay_ms: delayMs, error: errorMessage(err),
          }),
        });
        // The order was kept until now, so that a checker killed before this point carries it on.
        if (stored) await opts.issuer.certificateStored?.(domain.hostname).catch((err: unknown) => opts.logger.warn('could not forget a stored certificate\'s order', { hostname: domain.hostname, error: errorMessage(err) }));
      } else {
        await this.recorder.add(step.record);
      }
      countConfirmation(step);
      this.held.delete(domain.id);
    } catch (err) {
      await this.giveBack([domain.id], err);
    }
  }

  private seeCertificate(domainId: string, notAfter: Date | null): void {
    if (notAfter) this.opts.seenCertificates?.see(domainId, notAfter, this.opts.now());
    else this.opts.seenCertificates?.forget(domainId);
  }

  /** Ends leases of domains this checker will not finish (another checker, or this one later, takes them). */
  private async giveBack(ids: string[], err: unknown): Promise<void> {
    if (err) this.opts.logger.error('check run failed', { domain_ids: ids.slice(0, 10), count: ids.length, error: errorMessage(err) });
    await this.opts.store.run((r) => r.checkRuns.release(ids, this.opts.checkerId)).catch(() => undefined);
    for (const id of ids) this.held.delete(id);
  }
}

