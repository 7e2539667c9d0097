// One check run of one leased domain: the four checks, then ONE transaction
// with the check rows, the status transition, the next check time, the
// certificate and the outbox rows (events and the edge fan-out).
import {
  certificateGate,
  CHECK_TYPES,
  encryptSecret,
  evaluateCertificate,
  evaluateOrigin,
  evaluateOwnership,
  evaluateRouting,
  challengeRecordName,
  domainEvent,
  nextCheckDelayMs,
  nextStatus,
  toDomainResource,
  type CheckOutcome,
  type CheckType,
} from '@cds/core';
import type { CertificateRow, CheckRow, DataStore, DomainRow, LeasedDomain } from '@cds/data';
import type { ExpiryTracker } from '@cds/metrics';
import type { IssuedCertificate, CertificateIssuer } from './certificates/issuer';
import { IssuanceError } from './certificates/issuer';
import { renewalDue } from './certificates/renewal';
import { countAcmeOrder, countChecks, timedCheck } from './checker-metrics';
import type { MessagingLogger } from '@cds/messaging';
import type { DnsLookups } from './dns-lookups';
import { observeOrigin, type OriginProbeSettings } from './observe-origin';

export interface CheckDomainDeps {
  store: DataStore;
  dns: DnsLookups;
  issuer: CertificateIssuer;
  origin: OriginProbeSettings;
  edgeTarget: string;
  encryptionKey: Buffer;
  schedulePending: readonly number[];
  intervalLive: number;
  now: () => Date;
  logger: MessagingLogger;
  /** Where the notAfter of each checked domain's certificate goes (the expiry gauge). */
  seenCertificates?: ExpiryTracker;
}

export type CheckRunResult = 'checked' | 'skipped_deleted' | 'lease_lost';

type Outcomes = { [T in CheckType]: CheckOutcome<T> };

interface CertificateStep {
  outcome: CheckOutcome<'certificate'>;
  issued: IssuedCertificate | null;
  /** The notAfter of the certificate the domain serves with after this step; null without one or without both DNS checks (no traffic reaches it, none is renewed). */
  notAfter: Date | null;
}

async function certificateStep(deps: CheckDomainDeps, domain: DomainRow, ownership: CheckOutcome, routing: CheckOutcome, now: Date): Promise<CertificateStep> {
  const current = await deps.store.run((r) => r.certificates.find(domain.hostname));
  const gate = certificateGate(ownership, routing);
  const existing = current && current.domainId === domain.id ? current : null;
  // Without both DNS checks, an existing certificate is only judged, never renewed.
  if (gate) return { outcome: (existing && evaluateCertificate(existing, now)) || gate, issued: null, notAfter: null };
  const kept = existing?.notAfter ?? null;
  const window = existing && deps.issuer.renewalWindow ? await deps.issuer.renewalWindow(existing.pemChain).catch(() => null) : null;
  if (existing && !renewalDue(existing.notAfter, now, window)) {
    return { outcome: evaluateCertificate(existing, now) as CheckOutcome<'certificate'>, issued: null, notAfter: kept };
  }
  const acme = deps.issuer.kind === 'acme';
  try {
    const issued = await deps.issuer.issue(domain.hostname);
    if (acme) countAcmeOrder(null);
    return { outcome: { status: 'passing', errorCode: null, message: null }, issued, notAfter: issued.notAfter };
  } catch (err) {
    const code = err instanceof IssuanceError ? err.code : 'certificate_issuance_failed';
    if (acme) countAcmeOrder(code);
    // A renewal that fails leaves a still valid certificate passing.
    const stillValid = existing ? evaluateCertificate(existing, now) : null;
    if (stillValid?.status === 'passing') return { outcome: stillValid, issued: null, notAfter: kept };
    const message = err instanceof Error ? err.message : String(err);
    deps.logger.warn('certificate issuance failed', { domain_id: domain.id, hostname: domain.hostname, code, error: message });
    return { outcome: { status: 'failing', errorCode: code, message }, issued: null, notAfter: kept };
  }
}

function checkRow(domainId: string, type: CheckType, outcome: CheckOutcome, now: Date, nextCheckAt: Date): CheckRow {
  const observed = outcome.status !== 'pending';
  return {
    domainId,
    type,
    status: outcome.status,
    errorCode: outcome.status === 'failing' ? outcome.errorCode : null,
    message: outcome.message,
    observedAt: observed ? now : null,
    nextCheckAt: outcome.status === 'failing' ? nextCheckAt : null,
  };
}

/** Runs the checks of a domain this checker has leased and records the outcome. */
export async function checkDomain(deps: CheckDomainDeps, leased: LeasedDomain, leasedBy: string): Promise<CheckRunResult> {
  const { store } = deps;
  const domain = await store.run((r) => r.domains.find(leased.applicationId, leased.id, true));
  if (!domain || domain.deletedAt) {
    deps.seenCertificates?.forget(leased.id);
    await store.run((r) => r.checkRuns.release(leased.id, leasedBy));
    return 'skipped_deleted';
  }
  const startedAt = deps.now();
  const [txt, cnames, originSeen] = await Promise.all([
    timedCheck('ownership', () => deps.dns.txt(challengeRecordName(domain.hostname))),
    timedCheck('routing', () => deps.dns.cnameChain(domain.hostname)),
    timedCheck('origin', () => observeOrigin(store, domain, deps.origin, startedAt)),
  ]);
  const ownership = evaluateOwnership(domain.hostname, domain.challengeToken, txt);
  const routing = evaluateRouting(domain.hostname, deps.edgeTarget, cnames);
  const certificate = await timedCheck('certificate', () => certificateStep(deps, domain, ownership, routing, startedAt));
  const outcomes: Outcomes = { ownership, routing, certificate: certificate.outcome, origin: evaluateOrigin(originSeen) };
  countChecks(outcomes);
  if (certificate.notAfter) deps.seenCertificates?.see(domain.id, certificate.notAfter, deps.now());
  else deps.seenCertificates?.forget(domain.id);
  return recordRun(deps, leased, leasedBy, outcomes, certificate.issued);
}

async function recordRun(deps: CheckDomainDeps, leased: LeasedDomain, leasedBy: string, outcomes: Outcomes, issued: IssuedCertificate | null): Promise<CheckRunResult> {
  return deps.store.transaction(async (r) => {
    // Serializes with DELETE, which updates this row: whichever commits first, the other sees it.
    await r.checkRuns.lockDomain(leased.id);
    const domain = await r.domains.find(leased.applicationId, leased.id, true);
    if (!domain || domain.deletedAt) {
      await r.checkRuns.release(leased.id, leasedBy);
      return 'skipped_deleted';
    }
    if (!(await r.checkRuns.finish(leased.id, leasedBy))) return 'lease_lost';
    const now = deps.now();
    const allPassing = CHECK_TYPES.every((type) => outcomes[type].status === 'passing');
    const transition = nextStatus(domain.status, allPassing);
    const status = transition.status as Exclude<DomainRow['status'], 'deleting'>;
    const nextCheckAt = new Date(now.getTime() + nextCheckDelayMs(status, leased.checkCount + 1, deps.schedulePending, deps.intervalLive));
    const rows = CHECK_TYPES.map((type) => checkRow(domain.id, type, outcomes[type], now, nextCheckAt));
    const before = await r.domains.checksOf([domain.id]);
    const checksChanged = rows.some((row) => {
      const old = before.find((b) => b.type === row.type);
      return !old || old.status !== row.status || old.errorCode !== row.errorCode || old.message !== row.message;
    });
    const statusChanged = transition.status !== domain.status;
    const updated: DomainRow = { ...domain, status: transition.status, nextCheckAt, updatedAt: statusChanged || checksChanged || issued ? now : domain.updatedAt };
    await r.checkRuns.saveChecks(rows);
    await r.domains.update(domain.applicationId, domain.id, { status: updated.status, nextCheckAt, updatedAt: updated.updatedAt });
    if (issued) await r.certificates.save(certificateRow(domain, deps.issuer, issued, deps.encryptionKey, now));

    const ref = { domain_id: domain.id, hostname: domain.hostname, application_id: domain.applicationId };
    if (transition.event) {
      const resource = toDomainResource(updated, rows, deps.edgeTarget);
      await r.outbox.add('event.emitted', domainEvent(transition.event, domain.applicationId, resource, now));
    }
    if (statusChanged) await r.outbox.add('domain.changed', { ...ref, change: 'status' });
    if (issued) await r.outbox.add('domain.changed', { ...ref, change: 'certificate' });
    return 'checked';
  });
}

function certificateRow(domain: DomainRow, issuer: CertificateIssuer, issued: IssuedCertificate, key: Buffer, now: Date): CertificateRow {
  return {
    hostname: domain.hostname,
    domainId: domain.id,
    issuer: issuer.kind,
    pemChain: issued.pemChain,
    keySealed: encryptSecret(issued.keyPem, key),
    notBefore: issued.notBefore,
    notAfter: issued.notAfter,
    createdAt: now,
  };
}
