// The outbox aggregate: messages written in the same transaction as the
// change they announce, typed by routing key so a wrong payload fails the build.
import type { Message, MessagePayload, RoutingKey } from '@cds/core';

export interface OutboxRow {
  id: string; // uuid
  seq: number; // insertion order (autoincrement)
  /** As stored: the relay checks it against the message catalog before it publishes. */
  routingKey: string;
  payload: unknown; // JSON
  createdAt: Date;
  publishedAt: Date | null;
  attempts: number;
  /** When the relay set the row aside because the catalog refuses it (DECISIONS §9); such a row is never published. */
  setAsideAt: Date | null;
  /** Why: the catalog's refusal. */
  setAsideReason: string | null;
}

/** A message written to the outbox with the change it announces. */
export type OutboxMessage = Message;

export interface OutboxRepository {
  add<K extends RoutingKey>(routingKey: K, payload: MessagePayload<K>): Promise<OutboxRow>;
  /** Rows still to publish (neither published nor set aside), oldest first. */
  unpublished(limit: number): Promise<OutboxRow[]>;
  markPublished(ids: string[], at: Date): Promise<void>;
  recordFailedAttempt(ids: string[]): Promise<void>;
  /** Takes rows the message catalog refuses out of the relay's way, keeping them with the reason. */
  setAside(ids: string[], reason: string, at: Date): Promise<void>;
  /** Rows still to publish: how many, and when the oldest was written (null when none). */
  backlog(): Promise<{ count: number; oldestAt: Date | null }>;
  /** Every row, in insertion order (tests and diagnostics). */
  all(routingKey?: string): Promise<OutboxRow[]>;
}
