import type { DataStore } from './data-store.types';
import type { OutboxRow } from './repositories/outbox.types';

/** The outbox table as the relay (libs/messaging) sees it: each call its own unit of work. */
export function outboxSource(store: DataStore) {
  return {
    unpublished: (limit: number): Promise<OutboxRow[]> => store.run((r) => r.outbox.unpublished(limit)),
    markPublished: (ids: string[], at: Date): Promise<void> => store.run((r) => r.outbox.markPublished(ids, at)),
    recordFailedAttempt: (ids: string[]): Promise<void> => store.run((r) => r.outbox.recordFailedAttempt(ids)),
    setAside: (ids: string[], reason: string, at: Date): Promise<void> => store.run((r) => r.outbox.setAside(ids, reason, at)),
  };
}
