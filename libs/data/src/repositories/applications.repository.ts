import { IsNull, type EntityManager, type Repository } from 'typeorm';
import { ENTITY } from '../entities';
import { guardUnique } from '../errors';
import { queryRows } from '../sql';
import type { DatabaseKind } from '../database-url';
import type { ApplicationRow, ApplicationsRepository, NewApplicationRow } from './applications.types';
import { updateWhere } from './write-helpers';

/** Advisory lock key of the deployment-wide live-domain limit ("cds" + 1). */
const DEPLOYMENT_LOCK_KEY = 0x63647301;

export class TypeOrmApplicationsRepository implements ApplicationsRepository {
  private readonly rows: Repository<ApplicationRow>;

  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {
    this.rows = manager.getRepository<ApplicationRow>(ENTITY.application);
  }

  listLive(): Promise<ApplicationRow[]> {
    return this.rows.find({ where: { deletedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findLiveBySlug(slug: string): Promise<ApplicationRow | null> {
    return this.rows.findOneBy({ slug, deletedAt: IsNull() });
  }

  findById(id: string): Promise<ApplicationRow | null> {
    return this.rows.findOneBy({ id });
  }

  async insert(row: NewApplicationRow): Promise<void> {
    await guardUnique(this.rows.insert({ ...row, liveDomains: 0 }));
  }

  update(id: string, patch: Partial<Omit<ApplicationRow, 'id' | 'liveDomains'>>): Promise<void> {
    return updateWhere(this.rows, { id }, patch);
  }

  // SQLite needs no locks: its units of work run one at a time.
  async lock(id: string): Promise<void> {
    // NO KEY UPDATE, not UPDATE: inserting a domain already holds KEY SHARE on its
    // application row (the foreign key); FOR UPDATE would conflict with the
    // other creates' KEY SHARE and deadlock them, NO KEY UPDATE only queues them.
    if (this.kind === 'postgres') await queryRows(this.manager, 'SELECT id FROM applications WHERE id = :id FOR NO KEY UPDATE', { id });
  }

  async lockDeployment(): Promise<void> {
    if (this.kind === 'postgres') await queryRows(this.manager, `SELECT pg_advisory_xact_lock(${DEPLOYMENT_LOCK_KEY})`, {});
  }
}
