import { byCheckType } from '@cds/core';
import type { EntityManager } from 'typeorm';
import { nullableTextFromDb, nullableTimestampFromDb, numberFromDb, queryRows, timestampFromDb, updateReturning, type RawRow } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { CertificateRow } from './certificates.types';
import type { CheckRunRecord, CheckRunsRepository, LeasedDomain } from './check-runs.types';
import { runChecksText } from './run-checks-text';
import type { CheckRow, DomainRow } from './domains.types';
import { ENTITY } from '../entities';
import { TypeOrmCertificatesRepository } from './certificates.repository';
import { DOMAIN_COLUMN_NAMES } from './domain-columns';
import { insertOutboxRow, outboxInsertFor, outboxParams } from './outbox-insert';
import { atomically, chunks } from './write-helpers';

/** Every column of a leased domain, as the lease statements return them. */
const LEASED_COLUMNS = `${DOMAIN_COLUMN_NAMES}, check_count, status_runs`;

function domainFromDb(raw: RawRow): DomainRow {
  return {
    id: String(raw.id),
    applicationId: String(raw.application_id),
    hostname: String(raw.hostname),
    reference: String(raw.reference),
    status: raw.status as DomainRow['status'],
    challengeToken: String(raw.challenge_token),
    metadata: JSON.parse(String(raw.metadata)) as DomainRow['metadata'],
    redirectTo: nullableTextFromDb(raw.redirect_to),
    createdAt: timestampFromDb(raw.created_at),
    updatedAt: timestampFromDb(raw.updated_at),
    deletedAt: nullableTimestampFromDb(raw.deleted_at),
    nextCheckAt: nullableTimestampFromDb(raw.next_check_at),
  };
}

/** The check columns the lease reads, in the order checkFromJson takes them. */
const CHECK_COLUMNS = ['type', 'status', 'error_code', 'message', 'observed_at', 'next_check_at', 'failed_runs', 'failing_since', 'inconclusive'] as const;

/** A check row as CHECK_COLUMNS' values (PostgreSQL's json_build_array). */
function checkFromJson(domainId: string, row: unknown[]): CheckRow {
  const [type, status, errorCode, message, observedAt, nextCheckAt, failedRuns, failingSince, inconclusive] = row;
  return {
    domainId, type: type as CheckRow['type'], status: status as CheckRow['status'], errorCode: (errorCode ?? null) as string | null,
    message: (message ?? null) as string | null, observedAt: nullableTimestampFromDb(observedAt), nextCheckAt: nullableTimestampFromDb(nextCheckAt),
    failedRuns: numberFromDb(failedRuns ?? 0), failingSince: nullableTimestampFromDb(failingSince), inconclusive: inconclusive === true || inconclusive === 1,
  };
}

function certificateFromDb(raw: RawRow): CertificateRow | null {
  if (raw.c_hostname === null || raw.c_hostname === undefined) return null;
  return {
    hostname: String(raw.c_hostname), domainId: String(raw.c_domain_id), issuer: raw.c_issuer as CertificateRow['issuer'], pemChain: String(raw.c_pem_chain),
    keySealed: String(raw.c_key_sealed), notBefore: timestampFromDb(raw.c_not_before), notAfter: timestampFromDb(raw.c_not_after), createdAt: timestampFromDb(raw.c_created_at),
    ...(raw.c_directory_url === null || raw.c_directory_url === undefined ? {} : { directoryUrl: String(raw.c_directory_url) }),
    ...(raw.c_renew_requested_at === null || raw.c_renew_requested_at === undefined ? {} : { renewRequestedAt: timestampFromDb(raw.c_renew_requested_at) }),
  };
}

/**
 * PostgreSQL: a lease, the leased domains' check rows (as JSON, one row per
 * domain), whether their applications have an active origin and their
 * hostnames' certificates in one statement.
 */
const leaseWithContext = (update: string) => `
  WITH leased AS (${update} RETURNING ${LEASED_COLUMNS})
  SELECT leased.*,
    (SELECT json_agg(json_build_array(${CHECK_COLUMNS.map((c) => `dc.${c}`).join(', ')}))
       FROM domain_checks dc WHERE dc.domain_id = leased.id) AS checks,
    EXISTS (SELECT 1 FROM origins o WHERE o.application_id = leased.application_id AND o.status = 'active') AS active_origin,
    c.hostname AS c_hostname, c.domain_id AS c_domain_id, c.issuer AS c_issuer, c.pem_chain AS c_pem_chain, c.key_sealed AS c_key_sealed,
    c.not_before AS c_not_before, c.not_after AS c_not_after, c.created_at AS c_created_at, c.directory_url AS c_directory_url, c.renew_requested_at AS c_renew_requested_at
  FROM leased LEFT JOIN certificates c ON c.hostname = leased.hostname`;

/**
 * What a recorded step sets on its domain (from `v`). A next_check_at set
 * after the run began (a recheck meanwhile) is kept when it is sooner.
 */
const DOMAIN_UPDATE = `
  status = v.status,
  next_check_at = CASE WHEN domains.next_check_at > v.started_at THEN LEAST(domains.next_check_at, v.next_check_at) ELSE v.next_check_at END,
  updated_at = v.updated_at,
  check_count = domains.check_count + v.counted,
  status_runs = CASE WHEN domains.status = v.status THEN domains.status_runs + v.counted ELSE 0 END,
  leased_by = CASE WHEN v.lease_until IS NULL THEN NULL ELSE domains.leased_by END,
  leased_until = v.lease_until`;

/** A timestamp sent as milliseconds since the epoch (exact, unlike a division into seconds). */
const fromEpochMs = (column: string) => `(TIMESTAMPTZ 'epoch' + ${column} * INTERVAL '1 millisecond')`;

const CHECK_UPSERT = `ON CONFLICT (domain_id, type) DO UPDATE SET status = excluded.status, error_code = excluded.error_code, message = excluded.message,
  observed_at = excluded.observed_at, next_check_at = excluded.next_check_at, failed_runs = excluded.failed_runs, failing_since = excluded.failing_since,
  inconclusive = excluded.inconclusive`;

/** A run's row replaces the oldest of the domain's ring of recent runs (or its own first step's). */
const RUN_UPSERT = `ON CONFLICT (domain_id, slot) DO UPDATE SET started_at = excluded.started_at, duration_ms = excluded.duration_ms, trigger = excluded.trigger,
  status_before = excluded.status_before, status_after = excluded.status_after, checks = excluded.checks`;


const CERTIFICATE_UPSERT = `ON CONFLICT (hostname) DO UPDATE SET domain_id = excluded.domain_id, issuer = excluded.issuer, pem_chain = excluded.pem_chain,
  key_sealed = excluded.key_sealed, not_before = excluded.not_before, not_after = excluded.not_after, created_at = excluded.created_at,
  directory_url = excluded.directory_url, renew_requested_at = NULL`;

/**
 * PostgreSQL: CheckRunsRepository.record in one statement. The domains' and
 * check rows travel as JSON, their times as milliseconds since the epoch (one
 * string each, made by JSON.stringify, where arrays would be quoted element by
 * element and each Date formatted); certificates and messages, rare, as arrays. `v` is materialized and carries the lease holder, so that "still leased
 * here" is a join condition: as a condition on domains alone, the planner
 * (whose statistics see nearly no leased rows) expected one row and looped
 * over the whole batch for each domain, batch size squared.
 */
const RECORD_STATEMENT = `
  WITH v AS MATERIALIZED (
    SELECT v.id, ${fromEpochMs('v.started_at')} AS started_at, v.status, ${fromEpochMs('v.next_check_at')} AS next_check_at,
      ${fromEpochMs('v.updated_at')} AS updated_at, v.counted, ${fromEpochMs('v.lease_until')} AS lease_until, CAST(:leasedBy AS varchar) AS leased_by
    FROM json_to_recordset(CAST(:steps AS json))
      AS v(id uuid, started_at bigint, status varchar, next_check_at bigint, updated_at bigint, counted integer, lease_until bigint)
  ),
  changed AS (
    UPDATE domains SET ${DOMAIN_UPDATE}
    FROM v WHERE domains.id = v.id AND domains.leased_by = v.leased_by AND domains.deleted_at IS NULL
      -- The id list lets the planner find the rows by primary key.
      AND domains.id = ANY(CAST(:ids AS uuid[]))
    RETURNING domains.id
  ),
  checks AS (
    INSERT INTO domain_checks (domain_id, type, status, error_code, message, observed_at, next_check_at, failed_runs, failing_since, inconclusive)
    SELECT c.domain_id, c.type, c.status, c.error_code, c.message, ${fromEpochMs('c.observed_at')}, ${fromEpochMs('c.next_check_at')},
      c.failed_runs, ${fromEpochMs('c.failing_since')}, c.inconclusive
    FROM json_to_recordset(CAST(:checks AS json))
      AS c(domain_id uuid, type varchar, status varchar, error_code text, message text, observed_at bigint, next_check_at bigint,
        failed_runs integer, failing_since bigint, inconclusive boolean)
    WHERE c.domain_id IN (SELECT id FROM changed)
    ${CHECK_UPSERT}
  ),
  runs AS (
    INSERT INTO domain_check_runs (domain_id, slot, started_at, duration_ms, trigger, status_before, status_after, checks)
    SELECT r.domain_id, r.slot, ${fromEpochMs('r.started_at')}, r.duration_ms, r.trigger, r.status_before, r.status_after, r.checks
    FROM json_to_recordset(CAST(:runs AS json))
      AS r(domain_id uuid, slot smallint, started_at bigint, duration_ms integer, trigger varchar, status_before varchar, status_after varchar, checks text)
    WHERE r.domain_id IN (SELECT id FROM changed)
    ${RUN_UPSERT}
  ),
  certificates AS (
    INSERT INTO certificates (hostname, domain_id, issuer, pem_chain, key_sealed, not_before, not_after, created_at, directory_url)
    SELECT t.* FROM unnest(CAST(:certHostnames AS varchar[]), CAST(:certDomains AS uuid[]), CAST(:certIssuers AS varchar[]), CAST(:certChains AS text[]),
      CAST(:certKeys AS text[]), CAST(:certNotBefore AS timestamptz[]), CAST(:certNotAfter AS timestamptz[]), CAST(:certCreated AS timestamptz[]),
      CAST(:certDirectories AS text[]))
      AS t(hostname, domain_id, issuer, pem_chain, key_sealed, not_before, not_after, created_at, directory_url)
    WHERE t.domain_id IN (SELECT id FROM changed)
    ${CERTIFICATE_UPSERT}
  ),
  messages AS (${outboxInsertFor('changed')})
  SELECT id FROM changed`;

/** A lease is free when nobody holds it or its holder let it expire (a crashed checker). */
const LEASE_FREE = '(leased_until IS NULL OR leased_until < :now)';

/** Rows written per statement at most (parameters stay far below both databases' limits). */
const ROWS_PER_STATEMENT = 100;

export class TypeOrmCheckRunsRepository implements CheckRunsRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  claimDue(now: Date, limit: number, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain[]> {
    // Replicas skip each other's locked rows instead of waiting (PostgreSQL); the
    // lease condition is re-evaluated on the locked row version, so a lease that
    // another replica committed meanwhile is respected.
    const lock = this.kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    return this.lease(
      `UPDATE domains SET leased_by = :leasedBy, leased_until = :leaseUntil
       WHERE id IN (SELECT id FROM domains WHERE deleted_at IS NULL AND next_check_at <= :now AND ${LEASE_FREE}
                    ORDER BY next_check_at LIMIT :limit${lock})`,
      { now, limit, leasedBy, leaseUntil },
    );
  }

  async claim(domainId: string, now: Date, leasedBy: string, leaseUntil: Date): Promise<LeasedDomain | null> {
    const [leased] = await this.lease(
      `UPDATE domains SET leased_by = :leasedBy, leased_until = :leaseUntil WHERE id = :domainId AND deleted_at IS NULL AND ${LEASE_FREE}`,
      { domainId, now, leasedBy, leaseUntil },
    );
    return leased ?? null;
  }

  async extend(domainIds: string[], leasedBy: string, leaseUntil: Date): Promise<string[]> {
    const held: string[] = [];
    for (const ids of chunks(domainIds, ROWS_PER_STATEMENT * 10)) {
      const rows = await updateReturning<{ id: string }>(
        this.manager, this.kind,
        'UPDATE domains SET leased_until = :leaseUntil WHERE id IN (:...ids) AND leased_by = :leasedBy',
        'id', { ids, leasedBy, leaseUntil },
      );
      held.push(...rows.map((row) => row.id));
    }
    return held;
  }

  async release(domainIds: string[], leasedBy: string): Promise<void> {
    for (const ids of chunks(domainIds, ROWS_PER_STATEMENT * 10)) {
      await updateReturning(this.manager, this.kind, 'UPDATE domains SET leased_by = NULL, leased_until = NULL WHERE id IN (:...ids) AND leased_by = :leasedBy', 'id', { ids, leasedBy });
    }
  }

  record(records: CheckRunRecord[], leasedBy: string): Promise<string[]> {
    if (records.length === 0) return Promise.resolve([]);
    if (this.kind === 'postgres') return this.recordInOneStatement(records, leasedBy);
    return atomically(this.manager, (manager) => new TypeOrmCheckRunsRepository(manager, this.kind).recordStepByStep(records, leasedBy));
  }

  /** The leased domains with their context, oldest due first (an UPDATE returns its rows in no set order). */
  private async lease(update: string, params: Record<string, unknown>): Promise<LeasedDomain[]> {
    const leased = this.kind === 'postgres'
      ? (await queryRows<RawRow>(this.manager, leaseWithContext(update), params)).map((raw): LeasedDomain => {
          const domain = domainFromDb(raw);
          const checks = ((raw.checks ?? []) as unknown[][]).map((row) => checkFromJson(domain.id, row)).sort(byCheckType);
          return {
            domain, checkCount: numberFromDb(raw.check_count), statusRuns: numberFromDb(raw.status_runs), checks, certificate: certificateFromDb(raw),
            hasActiveOrigin: raw.active_origin === true,
          };
        })
      : await this.withContext(await updateReturning<RawRow>(this.manager, this.kind, update, LEASED_COLUMNS, params));
    const due = (l: LeasedDomain) => l.domain.nextCheckAt?.getTime() ?? 0;
    return leased.sort((a, b) => due(a) - due(b));
  }

  /** SQLite: the check rows and certificates of the leased domains, read after the lease. */
  private async withContext(rows: RawRow[]): Promise<LeasedDomain[]> {
    if (rows.length === 0) return [];
    const domains = rows.map(domainFromDb);
    const ids = domains.map((d) => d.id);
    const checks = await queryRows<RawRow>(this.manager, `SELECT domain_id, ${CHECK_COLUMNS.join(', ')} FROM domain_checks WHERE domain_id IN (:...ids)`, { ids });
    const certificates = await queryRows<RawRow>(
      this.manager,
      `SELECT hostname AS c_hostname, domain_id AS c_domain_id, issuer AS c_issuer, pem_chain AS c_pem_chain, key_sealed AS c_key_sealed,
         not_before AS c_not_before, not_after AS c_not_after, created_at AS c_created_at, directory_url AS c_directory_url, renew_requested_at AS c_renew_requested_at
       FROM certificates WHERE hostname IN (:...hostnames)`,
      { hostnames: domains.map((d) => d.hostname) },
    );
    const withOrigin = new Set((await queryRows<RawRow>(
      this.manager, `SELECT application_id FROM origins o WHERE o.status = 'active' AND o.application_id IN (:...applicationIds)`,
      { applicationIds: [...new Set(domains.map((d) => d.applicationId))] },
    )).map((row) => String(row.application_id)));
    return domains.map((domain, i) => ({
      domain,
      checkCount: numberFromDb((rows[i] as RawRow).check_count),
      statusRuns: numberFromDb((rows[i] as RawRow).status_runs),
      checks: checks.filter((c) => c.domain_id === domain.id).map((c) => checkFromJson(domain.id, CHECK_COLUMNS.map((column) => c[column]))).sort(byCheckType),
      certificate: certificateFromDb(certificates.find((c) => c.c_hostname === domain.hostname) ?? {}),
      hasActiveOrigin: withOrigin.has(domain.applicationId),
    }));
  }

  /**
   * PostgreSQL: a whole batch as one statement, the rows as arrays. The check
   * rows, certificates and messages are written for the domains the UPDATE
   * changed, and only for them.
   */
  private async recordInOneStatement(records: CheckRunRecord[], leasedBy: string): Promise<string[]> {
    const iso = (date: Date | null) => date?.toISOString() ?? null;
    const ms = (date: Date | null) => date?.getTime() ?? null;
    const certificates = records.flatMap((record) => (record.certificate ? [record.certificate] : []));
    // Planned at every execution: the generic plan of a prepared statement is ten times slower here.
    const rows = await queryRows<{ id: string }>(this.manager, RECORD_STATEMENT, {
      leasedBy,
      ids: records.map((r) => r.domainId),
      steps: JSON.stringify(records.map((r) => ({
        id: r.domainId, started_at: ms(r.startedAt), status: r.status, next_check_at: ms(r.nextCheckAt), updated_at: ms(r.updatedAt), counted: r.counted ? 1 : 0,
        lease_until: ms(r.leaseUntil),
      }))),
      checks: JSON.stringify(records.flatMap((record) => record.checks.map((c) => ({
        domain_id: c.domainId, type: c.type, status: c.status, error_code: c.errorCode, message: c.message, observed_at: ms(c.observedAt), next_check_at: ms(c.nextCheckAt),
        failed_runs: c.failedRuns ?? 0, failing_since: ms(c.failingSince ?? null), inconclusive: c.inconclusive ?? false,
      })))),
      runs: JSON.stringify(records.map(({ domainId, run }) => ({
        domain_id: domainId, slot: run.slot, started_at: ms(run.startedAt), duration_ms: run.durationMs, trigger: run.trigger,
        status_before: run.statusBefore, status_after: run.statusAfter, checks: runChecksText(run.checks),
      }))),
      certHostnames: certificates.map((c) => c.hostname), certDomains: certificates.map((c) => c.domainId), certIssuers: certificates.map((c) => c.issuer),
      certChains: certificates.map((c) => c.pemChain), certKeys: certificates.map((c) => c.keySealed), certNotBefore: certificates.map((c) => iso(c.notBefore)),
      certNotAfter: certificates.map((c) => iso(c.notAfter)), certCreated: certificates.map((c) => iso(c.createdAt)),
      certDirectories: certificates.map((c) => c.directoryUrl ?? null),
      ...outboxParams(records.flatMap((record) => record.messages.map((message) => ({ domainId: record.domainId, message })))),
    });
    return rows.map((row) => row.id);
  }

  /** SQLite runs one unit of work at a time: the same writes, statement by statement, in one transaction. */
  private async recordStepByStep(records: CheckRunRecord[], leasedBy: string): Promise<string[]> {
    const written = new Set<string>();
    for (const part of chunks(records, ROWS_PER_STATEMENT)) {
      for (const id of await this.updateDomains(part, leasedBy)) written.add(id);
    }
    const kept = records.filter((record) => written.has(record.domainId));
    const checks = kept.flatMap((record) => record.checks);
    for (const part of chunks(checks, ROWS_PER_STATEMENT)) {
      await this.manager.getRepository<CheckRow>(ENTITY.domainCheck).upsert(part.map((c) => ({ failedRuns: 0, failingSince: null, inconclusive: false, ...c })), ['domainId', 'type']);
    }
    for (const record of kept) {
      const { run } = record;
      await queryRows(this.manager, `INSERT INTO domain_check_runs (domain_id, slot, started_at, duration_ms, trigger, status_before, status_after, checks)
        VALUES (:domainId, :slot, :startedAt, :durationMs, :trigger, :statusBefore, :statusAfter, :checks) ${RUN_UPSERT}`, {
        domainId: record.domainId, slot: run.slot, startedAt: run.startedAt, durationMs: run.durationMs, trigger: run.trigger,
        statusBefore: run.statusBefore, statusAfter: run.statusAfter, checks: runChecksText(run.checks),
      });
    }
    const certificates = new TypeOrmCertificatesRepository(this.manager);
    for (const record of kept) if (record.certificate) await certificates.save(record.certificate);
    // In the order given: the outbox's seq keeps it.
    for (const message of kept.flatMap((record) => record.messages)) await insertOutboxRow(this.manager, message);
    return [...written];
  }

  /** One UPDATE … FROM (VALUES …) for the domains still leased here and live (SQLite). */
  private async updateDomains(records: CheckRunRecord[], leasedBy: string): Promise<string[]> {
    const params: Record<string, unknown> = { leasedBy };
    const rows = records.map((record, i) => {
      Object.assign(params, {
        [`id${i}`]: record.domainId, [`started${i}`]: record.startedAt, [`status${i}`]: record.status, [`next${i}`]: record.nextCheckAt,
        [`updated${i}`]: record.updatedAt, [`counted${i}`]: record.counted ? 1 : 0, [`lease${i}`]: record.leaseUntil,
      });
      return `(:id${i}, :started${i}, :status${i}, :next${i}, :updated${i}, :counted${i}, :lease${i})`;
    });
    // SQLite's RETURNING sees only the updated table: hence the unqualified id.
    const sql = `WITH v (id, started_at, status, next_check_at, updated_at, counted, lease_until) AS (VALUES ${rows.join(', ')})
      UPDATE domains SET ${DOMAIN_UPDATE.replace('LEAST', 'MIN')}
      FROM v WHERE domains.id = v.id AND domains.leased_by = :leasedBy AND domains.deleted_at IS NULL RETURNING id`;
    return (await queryRows<{ id: string }>(this.manager, sql, params)).map((row) => row.id);
  }
}
