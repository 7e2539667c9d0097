// What the edge tests serve: an application with an active origin and a domain
// with a certificate from the internal CA, sealed as the checker stores it.
import { randomUUID } from 'node:crypto';
import type { InternalCa } from '@cds/checker';
import { encryptSecret } from '@cds/core';
import type { ApplicationRow, DataStore, DomainRow, Repositories } from '@cds/data';
import { aDomain, anApplication, checksFor } from '../data/data-fixtures';

/** Issues a certificate for the domain and saves it (replacing any); returns the PEM chain. */
export async function saveCertificate(store: DataStore, ca: InternalCa, dataKey: Buffer, domain: Pick<DomainRow, 'id' | 'hostname'>): Promise<string> {
  const issued = await ca.issue(domain.hostname);
  await store.run((r) => r.certificates.save({
    hostname: domain.hostname, domainId: domain.id, issuer: 'internal', pemChain: issued.pemChain,
    keySealed: encryptSecret(issued.keyPem, dataKey, { purpose: 'certificate-key', id: domain.hostname }), notBefore: issued.notBefore, notAfter: issued.notAfter, createdAt: new Date(),
  }));
  return issued.pemChain;
}

/** Writes an application whose active origin is `originUrl`; `also` runs in the same transaction. */
export async function seedApplication(
  store: DataStore, originUrl: string, app: ApplicationRow = anApplication(), also?: (r: Repositories) => Promise<void>,
): Promise<ApplicationRow> {
  const now = new Date();
  await store.transaction(async (r) => {
    await r.applications.insert(app);
    await r.origins.insert({ id: randomUUID(), applicationId: app.id, url: originUrl, healthPath: '/', status: 'active', lastVerifiedAt: now, lastError: null, createdAt: now, updatedAt: now });
    await also?.(r);
  });
  return app;
}

/** An application with its active origin and one domain (ready unless said) with a certificate. */
export async function seedServedDomain(
  store: DataStore, ca: InternalCa, dataKey: Buffer, originUrl: string,
  opts: { app?: ApplicationRow; domain?: Partial<DomainRow>; also?: (r: Repositories) => Promise<void> } = {},
): Promise<{ app: ApplicationRow; domain: DomainRow }> {
  const app = opts.app ?? anApplication();
  const domain = aDomain(app.id, { status: 'ready', ...opts.domain });
  await seedApplication(store, originUrl, app, async (r) => {
    await r.domains.insert(domain, checksFor(domain.id));
    await opts.also?.(r);
  });
  await saveCertificate(store, ca, dataKey, domain);
  return { app, domain };
}
