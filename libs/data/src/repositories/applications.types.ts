// The applications aggregate: tenants, their plan and resolved limits.
import type { ApplicationStatus, Limits } from '@cds/core';

export interface ApplicationRow {
  id: string; // uuid, internal; the API names applications by slug
  slug: string;
  name: string;
  status: ApplicationStatus;
  plan: string;
  contactEmail: string | null;
  limits: Limits;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  /** How many of its domains are live: kept by DomainsRepository.register and markDeleted, never written directly. */
  liveDomains: number;
}

/** An application as it is created: it has no live domains yet. */
export type NewApplicationRow = Omit<ApplicationRow, 'liveDomains'>;

export interface ApplicationsRepository {
  listLive(): Promise<ApplicationRow[]>; // oldest first
  findLiveBySlug(slug: string): Promise<ApplicationRow | null>;
  findById(id: string): Promise<ApplicationRow | null>; // deleted included
  insert(row: NewApplicationRow): Promise<void>; // unique live slug: throws UniqueViolation
  update(id: string, patch: Partial<Omit<ApplicationRow, 'id' | 'liveDomains'>>): Promise<void>;
  /** Row lock (SELECT … FOR UPDATE on PostgreSQL; no-op on SQLite, whose transactions are serialized). */
  lock(id: string): Promise<void>;
  /**
   * Deployment-wide lock for the deployment live-domain limit (PostgreSQL: a
   * transaction-scoped advisory lock; SQLite: no-op). Take it after `lock(id)`.
   */
  lockDeployment(): Promise<void>;
}
