import { EntitySchema } from 'typeorm';
import type { CertificateRow } from '../repositories/certificates.types';
import type { ColumnTypes } from './column-types';
import { ENTITY } from './entity-names';

export const certificateEntity = (t: ColumnTypes) =>
  new EntitySchema<CertificateRow>({
    name: ENTITY.certificate,
    tableName: 'certificates',
    columns: {
      hostname: { type: 'varchar', primary: true },
      domainId: { type: t.uuid, name: 'domain_id' },
      issuer: { type: 'varchar' },
      pemChain: { type: 'text', name: 'pem_chain' },
      keySealed: { type: 'text', name: 'key_sealed' },
      notBefore: { type: t.timestamp, name: 'not_before' },
      notAfter: { type: t.timestamp, name: 'not_after' },
      createdAt: { type: t.timestamp, name: 'created_at' },
      // Absent, not null, when no directory is kept (internal, or issued before it was kept).
      directoryUrl: { type: 'text', name: 'directory_url', nullable: true, transformer: { to: (url?: string | null) => url ?? null, from: (url: string | null) => url ?? undefined } },
      // Absent, not null, when not marked for re-issue.
      renewRequestedAt: { type: t.timestamp, name: 'renew_requested_at', nullable: true, transformer: { to: (at?: Date | null) => at ?? null, from: (at: Date | null) => at ?? undefined } },
    },
  });
