import { randomBytes, randomUUID } from 'node:crypto';
import { FREE_PLAN_LIMITS } from '@cds/core';
import { createDataStore, type ApplicationRow, type CheckRow, type CredentialRow, type DataStore, type DomainRow } from '@cds/data';
import { createTestDatabase, type TestDatabase } from '../../support/test-database';

/** A timestamp with non-zero milliseconds, so every round trip checks them. */
export const T0 = new Date('2025-03-04T05:06:07.089Z');
export const at = (offsetMs: number): Date => new Date(T0.getTime() + offsetMs);

export interface MigratedStore {
  db: TestDatabase;
  store: DataStore;
  /** Another store on the same database, as a second process would open it. */
  openAnother(): Promise<DataStore>;
  close(): Promise<void>;
}

export async function openMigratedStore(): Promise<MigratedStore> {
  const db = await createTestDatabase();
  const store = await createDataStore({ url: db.url });
  await store.migrate();
  const others: DataStore[] = [];
  return {
    db,
    store,
    openAnother: async () => {
      const other = await createDataStore({ url: db.url, poolSize: 4 });
      others.push(other);
      return other;
    },
    close: async () => {
      for (const other of others) await other.close();
      await store.close();
      await db.drop();
    },
  };
}

const LIMITS = FREE_PLAN_LIMITS;

export function anApplication(overrides: Partial<ApplicationRow> = {}): ApplicationRow {
  return {
    id: randomUUID(),
    slug: `app-${randomBytes(4).toString('hex')}`,
    name: 'Shop',
    status: 'active',
    plan: 'free',
    contactEmail: 'ops@example.com',
    limits: { ...LIMITS },
    createdAt: T0,
    updatedAt: T0,
    deletedAt: null,
    liveDomains: 0,
    ...overrides,
  };
}

export function aCredential(applicationId: string, overrides: Partial<CredentialRow> = {}): CredentialRow {
  return {
    id: randomUUID(),
    applicationId,
    name: 'ci',
    prefix: 'cd_abcde',
    keyHash: randomBytes(32).toString('hex'),
    revokedAt: null,
    expiresAt: null,
    replacedById: null,
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

export function aDomain(applicationId: string, overrides: Partial<DomainRow> = {}): DomainRow {
  return {
    id: randomUUID(),
    applicationId,
    hostname: `shop-${randomBytes(4).toString('hex')}.example.net`,
    reference: 'ref-1',
    status: 'pending_dns',
    challengeToken: randomBytes(32).toString('hex'),
    metadata: {},
    redirectTo: null,
    createdAt: T0,
    updatedAt: T0,
    deletedAt: null,
    nextCheckAt: T0,
    ...overrides,
  };
}

export function checksFor(domainId: string): CheckRow[] {
  return (['ownership', 'routing', 'certificate', 'origin'] as const).map((type) => ({
    domainId, type, status: 'pending', errorCode: null, message: null, observedAt: null, nextCheckAt: null, failedRuns: 0, failingSince: null, inconclusive: false,
  }));
}
