// Every outbox row is written here: one message at a time (OutboxRepository.add,
// and SQLite's statement-by-statement writes), or, inside PostgreSQL's
// one-statement writes (a domain's registration, a batch of check results),
// the messages of the domains the statement wrote.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { numberFromDb, queryRows } from '../sql';
import type { OutboxMessage, OutboxRow } from './outbox.types';

const OUTBOX_COLUMNS = 'id, routing_key, payload, created_at, attempts';

/** A message's new row: a new id, and the payload as the JSON text stored. */
function newRow(message: OutboxMessage): { id: string; routingKey: string; payload: string } {
  const payload = JSON.stringify(message.payload);
  if (payload === undefined) throw new TypeError('Outbox payload has no JSON form.');
  return { id: randomUUID(), routingKey: message.routingKey, payload };
}

/** One message, written now; the row as stored. */
export async function insertOutboxRow(manager: EntityManager, message: OutboxMessage): Promise<OutboxRow> {
  const row = { ...newRow(message), createdAt: new Date() };
  // Raw INSERT … RETURNING: seq is assigned by the database on both sides.
  const [inserted] = await queryRows<{ seq: unknown }>(
    manager,
    `INSERT INTO outbox (${OUTBOX_COLUMNS}) VALUES (:id, :routingKey, :payload, :createdAt, 0) RETURNING seq`,
    row,
  );
  if (!inserted) throw new Error('Outbox insert returned no row.');
  return {
    id: row.id, seq: numberFromDb(inserted.seq), routingKey: row.routingKey, payload: JSON.parse(row.payload) as unknown, createdAt: row.createdAt,
    publishedAt: null, attempts: 0, setAsideAt: null, setAsideReason: null,
  };
}

/**
 * PostgreSQL, as one CTE of a larger statement: the messages of outboxParams
 * in their order (the outbox's seq keeps it), each written only when its
 * domain is among the ids of `domains` (the CTE that wrote or changed them).
 */
export function outboxInsertFor(domains: string): string {
  return `INSERT INTO outbox (${OUTBOX_COLUMNS})
    SELECT m.id, m.routing_key, m.payload, CAST(:messagesAt AS timestamptz), 0
    FROM unnest(CAST(:messageIds AS uuid[]), CAST(:messageDomains AS uuid[]), CAST(:messageKeys AS text[]), CAST(:messagePayloads AS text[]))
      WITH ORDINALITY AS m(id, domain_id, routing_key, payload, n)
    WHERE m.domain_id IN (SELECT id FROM ${domains})
    ORDER BY m.n`;
}

/** The parameters of outboxInsertFor: each message with the domain it announces a change of, written now. */
export function outboxParams(messages: Array<{ domainId: string; message: OutboxMessage }>): Record<string, unknown> {
  const rows = messages.map(({ domainId, message }) => ({ domainId, ...newRow(message) }));
  return {
    messageIds: rows.map((row) => row.id), messageDomains: rows.map((row) => row.domainId), messageKeys: rows.map((row) => row.routingKey),
    messagePayloads: rows.map((row) => row.payload), messagesAt: new Date().toISOString(),
  };
}
