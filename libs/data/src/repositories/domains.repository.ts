import { CHECK_TYPES } from '@cds/core';
import { In, IsNull, type EntityManager, type FindOptionsWhere, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { numberFromDb, queryPrepared, queryRows, updateReturning } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { CheckRow, DomainListFilter, DomainRow, DomainsRepository, RegisterOutcome } from './domains.types';
import { DOMAIN_COLUMN_NAMES, DOMAIN_COLUMNS } from './domain-columns';
import { insertOutboxRow, outboxInsertFor, outboxParams } from './outbox-insert';
import type { OutboxMessage } from './outbox.types';
import { atomically, updateWhere } from './write-helpers';

const OLDEST_FIRST = { createdAt: 'ASC', id: 'ASC' } as const;
/**
 * From this offset on, a page of live domains is found in the index first.
 * Before it, reading the skipped rows costs less than the page's 50 lookups
 * by primary key (EXPLAIN in docs/benchmarks-history.md, bench-scale).
 */
const DEEP_PAGE_OFFSET = 100;
/** `insert` admits whatever the count (the column is a 32-bit integer). */
const NO_LIMIT = 2_147_483_647;

type Params = Record<string, unknown>;

const CHECK_COLUMNS = ['type', 'status', 'errorCode', 'message', 'observedAt', 'nextCheckAt'] as const;

/** The check rows' VALUES: `:c<i><column>` parameters with PostgreSQL casts (a SELECT list does not type its parameters). */
function checkValues(count: number): string {
  const casts = { type: 'varchar', status: 'varchar', errorCode: 'text', message: 'text', observedAt: 'timestamptz', nextCheckAt: 'timestamptz' };
  return Array.from({ length: count }, (_, i) => `(${CHECK_COLUMNS.map((column) => `CAST(:c${i}${column} AS ${casts[column]})`).join(', ')})`).join(', ');
}

/**
 * PostgreSQL: the whole registration as ONE statement. The application's row
 * is locked by the conditional UPDATE and released at the statement's own
 * commit, so creates of one application queue only for the time the server
 * takes to insert and commit, never for a round trip to the client. READ
 * COMMITTED re-evaluates `live_domains < limit` on the row version a
 * concurrent create committed, so the limit cannot be passed. One text per
 * number of checks, with or without messages (1 or 0: the messages travel as
 * arrays), so each is prepared once per connection.
 */
const registerSql = memoize((checkCount: number, withMessages: number): string => {
  const domainValues = DOMAIN_COLUMNS.map(([field, , type]) => (field === 'applicationId' ? 'admitted.id' : `CAST(:${field} AS ${type})`)).join(', ');
  const parts = [
    `admitted AS (UPDATE applications SET live_domains = live_domains + :counted
       WHERE id = :applicationId AND live_domains < :limit RETURNING id)`,
    `inserted AS (INSERT INTO domains (${DOMAIN_COLUMN_NAMES})
       SELECT ${domainValues}
       FROM admitted RETURNING id)`,
  ];
  if (checkCount > 0) {
    parts.push(`checks AS (INSERT INTO domain_checks (domain_id, type, status, error_code, message, observed_at, next_check_at)
       SELECT inserted.id, c.* FROM inserted CROSS JOIN (VALUES ${checkValues(checkCount)}) AS c)`);
  }
  if (withMessages) parts.push(`messages AS (${outboxInsertFor('inserted')})`);
  return `WITH ${parts.join(',\n')}\nSELECT COUNT(*) AS admitted FROM inserted`;
});

function registerParams(domain: DomainRow, checks: CheckRow[], limit: number, messages: OutboxMessage[]): Params {
  const params: Params = { limit, counted: domain.deletedAt === null ? 1 : 0 };
  for (const [field] of DOMAIN_COLUMNS) params[field] = field === 'metadata' ? JSON.stringify(domain.metadata) : domain[field];
  checks.forEach((check, i) => {
    for (const column of CHECK_COLUMNS) params[`c${i}${column}`] = check[column];
  });
  if (messages.length > 0) Object.assign(params, outboxParams(messages.map((message) => ({ domainId: domain.id, message }))));
  return params;
}

/** Caches a function of two small integers. */
function memoize<T>(build: (a: number, b: number) => T): (a: number, b: number) => T {
  const cache = new Map<string, T>();
  return (a, b) => {
    const key = `${a}/${b}`;
    let value = cache.get(key);
    if (value === undefined) {
      value = build(a, b);
      cache.set(key, value);
    }
    return value;
  };
}

export class TypeOrmDomainsRepository implements DomainsRepository {
  private readonly rows: Repository<DomainRow>;
  private readonly checks: Repository<CheckRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<DomainRow>(ENTITY.domain);
    this.checks = manager.getRepository<CheckRow>(ENTITY.domainCheck);
  }

  async register(domain: DomainRow, checks: CheckRow[], opts: { limit: number; messages: OutboxMessage[] }): Promise<RegisterOutcome> {
    const admitted = this.kind === 'postgres'
      ? await this.registerInOneStatement(domain, checks, opts.limit, opts.messages)
      : await this.registerStepByStep(domain, checks, opts.limit, opts.messages);
    return admitted ? { admitted: true } : { admitted: false, live: await this.liveCount(domain.applicationId) };
  }

  async insert(domain: DomainRow, checks: CheckRow[]): Promise<void> {
    const outcome = await this.register(domain, checks, { limit: NO_LIMIT, messages: [] });
    if (!outcome.admitted) throw new Error(`No live application ${domain.applicationId} for domain ${domain.id}.`);
  }

  async markDeleted(applicationId: string, id: string, at: Date): Promise<boolean> {
    return atomically(this.manager, async (manager) => {
      const deleted = await updateReturning<{ id: string }>(
        manager, this.kind,
        `UPDATE domains SET status = 'deleting', deleted_at = :at, updated_at = :at, next_check_at = NULL
         WHERE application_id = :applicationId AND id = :id AND deleted_at IS NULL`,
        'id', { applicationId, id, at },
      );
      if (deleted.length === 0) return false;
      await updateReturning(manager, this.kind, 'UPDATE applications SET live_domains = live_domains - 1 WHERE id = :applicationId', 'id', { applicationId });
      return true;
    });
  }

  find(applicationId: string, id: string, includeDeleted: boolean): Promise<DomainRow | null> {
    return this.rows.findOneBy({ applicationId, id, ...(includeDeleted ? {} : { deletedAt: IsNull() }) });
  }

  list(applicationId: string, filter: DomainListFilter): Promise<DomainRow[]> {
    if (filter.offset >= DEEP_PAGE_OFFSET && filter.reference === undefined && filter.status === undefined && !filter.includeDeleted) {
      return this.deepLivePage(applicationId, filter);
    }
    const where: FindOptionsWhere<DomainRow> = { applicationId };
    if (filter.reference !== undefined) where.reference = filter.reference;
    if (filter.status !== undefined) where.status = filter.status;
    if (!filter.includeDeleted) where.deletedAt = IsNull();
    return this.rows.find({ where, order: OLDEST_FIRST, skip: filter.offset, take: filter.limit });
  }

  /**
   * A deep page of live domains: its ids from ix_domains_application_live alone
   * (the offset skips index entries, not rows), then those rows by primary key.
   */
  private deepLivePage(applicationId: string, filter: DomainListFilter): Promise<DomainRow[]> {
    return this.rows.createQueryBuilder('d')
      .where(`d.id IN (SELECT p.id FROM domains p WHERE p.application_id = :applicationId AND p.deleted_at IS NULL
        ORDER BY p.created_at, p.id LIMIT :limit OFFSET :offset)`, { applicationId, limit: filter.limit, offset: filter.offset })
      .orderBy('d.createdAt', 'ASC').addOrderBy('d.id', 'ASC')
      .getMany();
  }

  /** Checks of the given domains, grouped in the order of `domainIds`, each group ownership → origin. */
  async checksOf(domainIds: string[]): Promise<CheckRow[]> {
    if (domainIds.length === 0) return [];
    const rows = await this.checks.findBy({ domainId: In(domainIds) });
    const position = new Map(domainIds.map((id, index) => [id, index]));
    const rank = (row: CheckRow) => (position.get(row.domainId) ?? 0) * CHECK_TYPES.length + CHECK_TYPES.indexOf(row.type);
    return rows.sort((a, b) => rank(a) - rank(b));
  }

  countLive(applicationId: string): Promise<number> {
    return this.rows.countBy({ applicationId, deletedAt: IsNull() });
  }

  /**
   * The applications' live-domain counters added up: the same number as counting
   * live domains, read from one row per application instead of every domain.
   */
  async countLiveAll(): Promise<number> {
    const [row] = await queryRows<{ live: unknown }>(this.manager, 'SELECT COALESCE(SUM(live_domains), 0) AS live FROM applications', {});
    return numberFromDb(row?.live ?? 0);
  }

  findLiveByHostname(hostname: string): Promise<DomainRow | null> {
    return this.rows.findOneBy({ hostname, deletedAt: IsNull() });
  }

  update(applicationId: string, id: string, patch: Partial<Omit<DomainRow, 'id' | 'applicationId' | 'deletedAt'>>): Promise<void> {
    return updateWhere(this.rows, { applicationId, id }, patch);
  }

  listLive(applicationId: string): Promise<DomainRow[]> {
    return this.rows.find({ where: { applicationId, deletedAt: IsNull() }, order: OLDEST_FIRST });
  }

  private async registerInOneStatement(domain: DomainRow, checks: CheckRow[], limit: number, messages: OutboxMessage[]): Promise<boolean> {
    const sql = registerSql(checks.length, messages.length > 0 ? 1 : 0);
    const [row] = await guardUnique(queryPrepared<{ admitted: unknown }>(this.manager, sql, registerParams(domain, checks, limit, messages)));
    return numberFromDb(row?.admitted ?? 0) > 0;
  }

  /** SQLite runs one unit of work at a time: the same steps in one transaction are just as atomic. */
  private registerStepByStep(domain: DomainRow, checks: CheckRow[], limit: number, messages: OutboxMessage[]): Promise<boolean> {
    return atomically(this.manager, async (manager) => {
      const admitted = await updateReturning<{ id: string }>(
        manager, this.kind,
        'UPDATE applications SET live_domains = live_domains + :counted WHERE id = :applicationId AND live_domains < :limit',
        'id', { applicationId: domain.applicationId, limit, counted: domain.deletedAt === null ? 1 : 0 },
      );
      if (admitted.length === 0) return false;
      await guardUnique(manager.getRepository<DomainRow>(ENTITY.domain).insert(domain));
      if (checks.length > 0) await guardUnique(manager.getRepository<CheckRow>(ENTITY.domainCheck).insert(checks));
      for (const message of messages) await insertOutboxRow(manager, message);
      return true;
    });
  }

  private async liveCount(applicationId: string): Promise<number> {
    const [row] = await queryRows<{ live: unknown }>(this.manager, 'SELECT live_domains AS live FROM applications WHERE id = :applicationId', { applicationId });
    return numberFromDb(row?.live ?? 0);
  }
}
