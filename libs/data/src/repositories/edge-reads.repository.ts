import type { EntityManager } from 'typeorm';
import type { ApplicationStatus, DomainStatus, Limits } from '@cds/core';
import type { DatabaseKind } from '../database-url';
import { nullableTextFromDb, queryRows, timestampFromDb, type RawRow } from '../sql';
import type { EdgeChange, EdgeChanges, EdgeReadsRepository, EdgeRouteRow } from './edge-reads.types';

const ROUTE = `
  SELECT d.id AS domain_id, d.hostname, d.reference, d.status, a.id AS application_id, a.slug, a.status AS application_status, a.limits,
    (SELECT o.url FROM origins o WHERE o.application_id = a.id AND o.status = 'active' LIMIT 1) AS origin_url
  FROM domains d JOIN applications a ON a.id = d.application_id
  WHERE d.hostname = :hostname AND d.deleted_at IS NULL AND d.status <> 'deleting' AND a.deleted_at IS NULL`;

/** The database's clock: the statement's start on PostgreSQL; SQLite's 'now' is fixed for a statement too. */
const CLOCK: Record<DatabaseKind, string> = {
  postgres: 'statement_timestamp()',
  sqlite: "strftime('%Y-%m-%d %H:%M:%f', 'now')",
};

// One statement for the five tables, each by its (changed_at) index, and the
// clock. A domain row says whether its hostname is live now: a deleted row of a
// name that was registered again must not make the name unknown.
const changesSql = (kind: DatabaseKind) => `
  SELECT 'domain' AS kind, d.hostname AS k, d.changed_at AS at,
    CASE WHEN EXISTS (SELECT 1 FROM domains l WHERE l.hostname = d.hostname AND l.deleted_at IS NULL) THEN 1 ELSE 0 END AS live
  FROM domains d WHERE d.changed_at > :since
  UNION ALL SELECT 'certificate', hostname, changed_at, NULL FROM certificates WHERE changed_at > :since
  UNION ALL SELECT 'application', CAST(id AS varchar), changed_at, NULL FROM applications WHERE changed_at > :since
  UNION ALL SELECT 'origin', CAST(application_id AS varchar), changed_at, NULL FROM origins WHERE changed_at > :since
  UNION ALL SELECT 'assertion_key', CAST(application_id AS varchar), changed_at, NULL FROM assertion_keys WHERE changed_at > :since
  UNION ALL SELECT 'clock', NULL, ${CLOCK[kind]}, NULL`;

/** Later than any row: the first read only learns the clock. */
const NEVER = new Date('9999-01-01T00:00:00Z');

export class TypeOrmEdgeReadsRepository implements EdgeReadsRepository {
  private readonly changes: string;

  constructor(
    private readonly manager: EntityManager,
    kind: DatabaseKind,
  ) {
    this.changes = changesSql(kind);
  }

  async route(hostname: string): Promise<EdgeRouteRow | null> {
    const [row] = await queryRows<RawRow>(this.manager, ROUTE, { hostname });
    if (!row) return null;
    return {
      domainId: String(row.domain_id), hostname: String(row.hostname), reference: String(row.reference), status: row.status as DomainStatus,
      applicationId: String(row.application_id), slug: String(row.slug), applicationStatus: row.application_status as ApplicationStatus,
      limits: JSON.parse(String(row.limits)) as Limits, originUrl: nullableTextFromDb(row.origin_url),
    };
  }

  async changesSince(since: Date | null): Promise<EdgeChanges> {
    const rows = await queryRows<RawRow>(this.manager, this.changes, { since: since ?? NEVER });
    let readAt: Date | null = null;
    const changes: EdgeChange[] = [];
    for (const row of rows) {
      if (row.kind === 'clock') readAt = timestampFromDb(row.at);
      else {
        const change: EdgeChange = { kind: row.kind as EdgeChange['kind'], key: String(row.k), changedAt: timestampFromDb(row.at) };
        if (row.kind === 'domain') change.live = Number(row.live) === 1;
        changes.push(change);
      }
    }
    if (readAt === null) throw new Error('The change feed read returned no clock.');
    return { readAt, changes };
  }

  async liveHostnames(after: string, limit: number): Promise<string[]> {
    const rows = await queryRows<{ hostname: string }>(
      this.manager, 'SELECT hostname FROM domains WHERE deleted_at IS NULL AND hostname > :after ORDER BY hostname LIMIT :limit', { after, limit },
    );
    return rows.map((row) => row.hostname);
  }

  async challenges(tokens: string[]): Promise<Map<string, string>> {
    if (tokens.length === 0) return new Map();
    const rows = await queryRows<{ token: string; key_authorization: string }>(
      this.manager, 'SELECT token, key_authorization FROM acme_challenges WHERE token IN (:...tokens)', { tokens },
    );
    return new Map(rows.map((row) => [row.token, row.key_authorization]));
  }
}
