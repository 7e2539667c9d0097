import type { EntityManager, FindOptionsWhere, ObjectLiteral, QueryDeepPartialEntity, Repository } from 'typeorm';
import { guardUnique } from '../errors';

/** Runs multi-statement writes in the caller's transaction, or in a new one when there is none (run()). */
export function atomically<T>(manager: EntityManager, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return manager.queryRunner?.isTransactionActive ? work(manager) : manager.transaction(work);
}

/** UPDATE with the defined fields of `patch`; an empty patch writes nothing. */
export async function updateWhere<T extends ObjectLiteral>(rows: Repository<T>, where: FindOptionsWhere<T>, patch: NoInfer<Partial<T>>): Promise<void> {
  const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  if (Object.keys(values).length === 0) return;
  await guardUnique(rows.update(where, values as QueryDeepPartialEntity<T>));
}

/** `items` in consecutive slices of at most `size` (statements stay below the databases' parameter limits). */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
