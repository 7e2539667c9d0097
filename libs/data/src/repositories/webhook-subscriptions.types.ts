// Webhook subscriptions and their signing secrets (migrations 1760000000200, 1760000000700, 1795843800000).
import type { CoolingState, SubscriptionStatus } from '@cds/core';

export interface WebhookSubscriptionRow {
  id: string;
  applicationId: string;
  url: string;
  events: string[];
  status: SubscriptionStatus;
  createdAt: Date;
  updatedAt: Date;
  revokedAt: Date | null;
}

export interface WebhookSecretRow {
  id: string;
  subscriptionId: string;
  secretSealed: string; // sealed with DATA_ENCRYPTION_KEY for SEAL_PURPOSES.webhookSecret and the row's id (libs/core secret-box): it must be recoverable to sign
  createdAt: Date;
  expiresAt: Date | null; // null while current; a rotation sets it to the rotation time + 24 h
}

export interface WebhookSubscriptionsRepository {
  /** The subscription and its first secret. */
  insert(subscription: WebhookSubscriptionRow, secret: WebhookSecretRow): Promise<void>;
  list(applicationId: string): Promise<WebhookSubscriptionRow[]>; // oldest first, revoked included
  find(applicationId: string, id: string): Promise<WebhookSubscriptionRow | null>;
  /** Row lock (SELECT … FOR UPDATE on PostgreSQL; no-op on SQLite). */
  lock(applicationId: string, id: string): Promise<void>;
  countActive(applicationId: string): Promise<number>;
  update(applicationId: string, id: string, patch: Partial<Pick<WebhookSubscriptionRow, 'status' | 'updatedAt' | 'revokedAt'>>): Promise<void>;
  /** Active subscriptions of these applications; on PostgreSQL FOR SHARE, so a revoke running now is waited for. */
  activeForFanOut(applicationIds: string[]): Promise<WebhookSubscriptionRow[]>;
  /** Subscriptions by id, any application (the dispatcher). */
  findMany(ids: string[]): Promise<WebhookSubscriptionRow[]>;
  addSecret(row: WebhookSecretRow): Promise<void>;
  /** Gives every current secret of the subscription (expiresAt null) this expiry: a rotation replaced it. */
  expireCurrentSecrets(subscriptionId: string, expiresAt: Date): Promise<void>;
  /** Secrets that still sign at `now`, newest first. */
  signingSecrets(subscriptionIds: string[], now: Date): Promise<WebhookSecretRow[]>;
  /**
   * What decides whether each subscription is cooling (DECISIONS §10, libs/core
   * isCooling), by subscription id: its failure streak and recent attempts. The
   * deliveries repository writes them with each outcome.
   */
  coolingStates(subscriptionIds: string[]): Promise<Map<string, CoolingState>>;
  /** Active subscriptions that are cooling. */
  countCooling(): Promise<number>;
}
