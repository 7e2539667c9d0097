import type { SealLabel } from '@cds/core';

/** The tables that hold values sealed with the data encryption key, by the table's name. */
export const SEALED_KINDS = ['assertion_keys', 'webhook_secrets', 'certificates', 'acme_orders', 'settings'] as const;
export type SealedKind = (typeof SEALED_KINDS)[number];

/** One sealed value and the row it is bound to. */
export interface SealedValue {
  kind: SealedKind;
  /** The row's primary key (a settings value: its key). */
  rowId: string;
  /** What it was sealed for: decryptSecret's label. */
  label: SealLabel;
  sealed: string;
}

/** Every sealed value, in pages, for `cdctl rekey` and the doctor. */
export interface SealedValuesRepository {
  /** Up to `limit` values of `kind` whose row id sorts after `after` (null: from the first), in row-id order. */
  page(kind: SealedKind, after: string | null, limit: number): Promise<SealedValue[]>;
  /** Writes `sealed` where the row still holds `expected`; false when the row is gone or was written meanwhile. */
  replace(value: SealedValue, sealed: string): Promise<boolean>;
}
