// Origins of an application (migration 1760000000100).
import type { OriginStatus } from '@cds/core';

export interface OriginRow {
  id: string;
  applicationId: string;
  url: string;
  healthPath: string; // starts with '/'
  status: OriginStatus; // at most one 'active' per application (unique index)
  lastVerifiedAt: Date | null;
  lastError: string | null; // why the last verification failed; null after a success
  createdAt: Date;
  updatedAt: Date;
}

export interface OriginsRepository {
  list(applicationId: string): Promise<OriginRow[]>; // oldest first
  find(applicationId: string, id: string): Promise<OriginRow | null>;
  findActive(applicationId: string): Promise<OriginRow | null>;
  insert(row: OriginRow): Promise<void>;
  update(applicationId: string, id: string, patch: Partial<Omit<OriginRow, 'id' | 'applicationId'>>): Promise<void>;
  delete(applicationId: string, id: string): Promise<void>;
}
