import type { EntityManager } from 'typeorm';
import type { ApplicationStatus, DomainStatus, Limits } from '@cds/core';
import type { DatabaseKind } from '../database-url';
import { nullableTextFromDb, queryRows, type RawRow } from '../sql';
import type { EdgeChange, EdgeChanges, EdgeReadsRepository, EdgeRouteRow, FeedSnapshot } from './edge-reads.types';

const ROUTE = `
  SELECT d.id AS domain_id, d.hostname, d.reference, d.status, d.redirect_to, a.id AS application_id, a.slug, a.status AS application_status, a.limits,
    (SELECT o.url FROM origins o WHERE o.application_id = a.id AND o.status = 'active' LIMIT 1) AS origin_url
  FROM domains d JOIN applications a ON a.id = d.application_id
  WHERE d.hostname = :hostname AND d.deleted_at IS NULL AND d.status <> 'deleting' AND a.deleted_at IS NULL`;

// The change feed: one statement for the five tables, each by its stamp's
// index, and the snapshot the statement read in. A domain row says whether its
// hostname is live now: a deleted row of a name that was registered again must
// not make the name unknown.
// PostgreSQL: a row written by a transaction the previous read's snapshot did
// not see as ended (in its in-progress list, or from its xmax on), and that
// this statement sees. SQLite: a row numbered past the counter the previous
// read saw. A stamp at or past this read's own xmax can only come from a copy
// of rows into another database (a restore into another cluster, where
// transaction ids start again): such a row is left out rather than read again
// at every read.
const FEED: Record<DatabaseKind, { unseen: (stamp: string) => string; text: (stamp: string) => string; snapshot: string; column: string }> = {
  postgres: {
    column: 'changed_xid',
    unseen: (c) => `${c} >= CAST(:xmin AS xid8) AND ${c} < pg_snapshot_xmax(pg_current_snapshot()) AND NOT pg_visible_in_snapshot(${c}, CAST(:seen AS pg_snapshot))`,
    text: (c) => `CAST(${c} AS text)`,
    snapshot: 'CAST(pg_current_snapshot() AS text)',
  },
  sqlite: {
    column: 'changed_seq',
    unseen: (c) => `${c} >= :xmax AND ${c} < (SELECT value + 1 FROM change_sequence)`,
    text: (c) => c,
    snapshot: '(SELECT value + 1 FROM change_sequence)',
  },
};

function changesSql(kind: DatabaseKind): string {
  const { column, unseen, text, snapshot } = FEED[kind];
  const row = (table: string, kindName: string, key: string) =>
    `SELECT '${kindName}', ${key}, ${text(column)}, NULL FROM ${table} WHERE ${unseen(column)}`;
  return `
  SELECT 'domain' AS kind, d.hostname AS k, ${text(`d.${column}`)} AS stamp,
    CASE WHEN EXISTS (SELECT 1 FROM domains l WHERE l.hostname = d.hostname AND l.deleted_at IS NULL) THEN 1 ELSE 0 END AS live
  FROM domains d WHERE ${unseen(`d.${column}`)}
  UNION ALL ${row('certificates', 'certificate', 'hostname')}
  UNION ALL ${row('applications', 'application', 'CAST(id AS varchar)')}
  UNION ALL ${row('origins', 'origin', 'CAST(application_id AS varchar)')}
  UNION ALL ${row('assertion_keys', 'assertion_key', 'CAST(application_id AS varchar)')}
  UNION ALL SELECT 'snapshot', NULL, ${snapshot}, NULL`;
}

const CHANGES_SQL: Record<DatabaseKind, string> = { postgres: changesSql('postgres'), sqlite: changesSql('sqlite') };

/** The first read only takes its position. */
const SNAPSHOT_SQL: Record<DatabaseKind, string> = {
  postgres: `SELECT ${FEED.postgres.snapshot} AS snapshot`,
  sqlite: `SELECT ${FEED.sqlite.snapshot} AS snapshot`,
};

/** PostgreSQL's `xmin:xmax:xip,…`, or SQLite's next change number. */
function snapshotFromDb(value: unknown): FeedSnapshot {
  const [xmin, xmax, xip] = String(value).split(':');
  if (xmax === undefined) return { xmin: BigInt(xmin!), xmax: BigInt(xmin!), xip: [] };
  return { xmin: BigInt(xmin!), xmax: BigInt(xmax), xip: xip ? xip.split(',').map((x) => BigInt(x)) : [] };
}

const pgSnapshotText = (s: FeedSnapshot): string => `${s.xmin}:${s.xmax}:${s.xip.join(',')}`;

export class TypeOrmEdgeReadsRepository implements EdgeReadsRepository {
  private readonly changes: string;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.changes = CHANGES_SQL[kind];
  }

  async route(hostname: string): Promise<EdgeRouteRow | null> {
    const [row] = await queryRows<RawRow>(this.manager, ROUTE, { hostname });
    if (!row) return null;
    return {
      domainId: String(row.domain_id), hostname: String(row.hostname), reference: String(row.reference), status: row.status as DomainStatus,
      applicationId: String(row.application_id), slug: String(row.slug), applicationStatus: row.application_status as ApplicationStatus,
      limits: JSON.parse(String(row.limits)) as Limits, originUrl: nullableTextFromDb(row.origin_url), redirectTo: nullableTextFromDb(row.redirect_to),
    };
  }

  async changesSince(seen: FeedSnapshot | null): Promise<EdgeChanges> {
    if (seen === null) {
      const [row] = await queryRows<RawRow>(this.manager, SNAPSHOT_SQL[this.kind], {});
      return { snapshot: snapshotFromDb(row!.snapshot), changes: [] };
    }
    const params = this.kind === 'postgres'
      ? { xmin: String(seen.xmin), seen: pgSnapshotText(seen) }
      : { xmax: Number(seen.xmax) };
    const rows = await queryRows<RawRow>(this.manager, this.changes, params);
    let snapshot: FeedSnapshot | null = null;
    const changes: EdgeChange[] = [];
    for (const row of rows) {
      if (row.kind === 'snapshot') snapshot = snapshotFromDb(row.stamp);
      else {
        const change: EdgeChange = { kind: row.kind as EdgeChange['kind'], key: String(row.k), stamp: BigInt(String(row.stamp)) };
        if (row.kind === 'domain') change.live = Number(row.live) === 1;
        changes.push(change);
      }
    }
    if (snapshot === null) throw new Error('The change feed read returned no snapshot.');
    return { snapshot, changes };
  }

  async liveHostnames(after: string, limit: number): Promise<string[]> {
    const rows = await queryRows<{ hostname: string }>(
      this.manager, 'SELECT hostname FROM domains WHERE deleted_at IS NULL AND hostname > :after ORDER BY hostname LIMIT :limit', { after, limit },
    );
    return rows.map((row) => row.hostname);
  }
}
