import { AsyncLocalStorage } from 'node:async_hooks';
import { NestedUnitOfWorkError } from './errors';

interface OpenUnit {
  owner: object;
  open: boolean;
  outer: OpenUnit | undefined;
}

const current = new AsyncLocalStorage<OpenUnit>();

/**
 * Runs `work` as a unit of work of `owner`. Starting another unit of the same owner
 * while this one is open throws (on SQLite it would queue behind itself); work left
 * running after the unit ended (fire and forget) is not affected.
 */
export async function inUnitScope<T>(owner: object, work: () => Promise<T>): Promise<T> {
  for (let unit = current.getStore(); unit; unit = unit.outer) {
    if (unit.owner === owner && unit.open) throw new NestedUnitOfWorkError();
  }
  const unit: OpenUnit = { owner, open: true, outer: current.getStore() };
  try {
    return await current.run(unit, work);
  } finally {
    unit.open = false;
  }
}
