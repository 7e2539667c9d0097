import type { EntityManager } from 'typeorm';
import { orderKeyId, SEAL_PURPOSES, type SealLabel } from '@cds/core';
import type { DatabaseKind } from '../database-url';
import { queryRows, updateReturning } from '../sql';
import type { SealedKind, SealedValue, SealedValuesRepository } from './sealed-values.types';

interface Row {
  row_id: unknown;
  sealed: string;
  order_url?: string;
}

interface SealedColumn {
  /** The primary key column. */
  id: string;
  /** The sealed value's column. */
  column: string;
  /** Rows of the table that hold no sealed value are left out. */
  where?: string;
  /** More columns the label needs. */
  extra?: string;
  label(rowId: string, row: Row): SealLabel;
}

// A sealed setting's key ends in `_sealed` (the ACME account key, the internal CA key).
const TABLES: Record<SealedKind, SealedColumn> = {
  assertion_keys: { id: 'kid', column: 'secret_sealed', label: (id) => ({ purpose: SEAL_PURPOSES.assertionKey, id }) },
  webhook_secrets: { id: 'id', column: 'secret_sealed', label: (id) => ({ purpose: SEAL_PURPOSES.webhookSecret, id }) },
  certificates: { id: 'hostname', column: 'key_sealed', label: (id) => ({ purpose: SEAL_PURPOSES.certificateKey, id }) },
  acme_orders: {
    id: 'hostname', column: 'key_sealed', extra: ', order_url',
    label: (id, row) => ({ purpose: SEAL_PURPOSES.acmeOrderKey, id: orderKeyId(id, row.order_url ?? '') }),
  },
  settings: { id: '"key"', column: 'value', where: `"key" LIKE '%!_sealed' ESCAPE '!'`, label: (id) => ({ purpose: SEAL_PURPOSES.setting, id }) },
};

export class TypeOrmSealedValuesRepository implements SealedValuesRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  async page(kind: SealedKind, after: string | null, limit: number): Promise<SealedValue[]> {
    const table = TABLES[kind];
    const conditions = [table.where, after === null ? undefined : `${table.id} > :after`].filter((c) => c !== undefined);
    const rows = await queryRows<Row>(
      this.manager,
      `SELECT ${table.id} AS row_id, ${table.column} AS sealed${table.extra ?? ''} FROM ${kind}
       ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${table.id} LIMIT :limit`,
      { after, limit },
    );
    return rows.map((row) => {
      const rowId = String(row.row_id);
      return { kind, rowId, label: table.label(rowId, row), sealed: row.sealed };
    });
  }

  async replace(value: SealedValue, sealed: string): Promise<boolean> {
    const table = TABLES[value.kind];
    const written = await updateReturning(
      this.manager, this.kind,
      `UPDATE ${value.kind} SET ${table.column} = :sealed WHERE ${table.id} = :rowId AND ${table.column} = :expected`, table.id,
      { sealed, rowId: value.rowId, expected: value.sealed },
    );
    return written.length === 1;
  }
}
