import { resealSecret, SecretBoxError, type DataKeys } from '@cds/core';
import { SEALED_KINDS, type DataStore, type SealedKind, type SealedValue } from '@cds/data';

/** What `cdctl rekey` did to one kind of sealed value. */
export interface RekeyCount {
  kind: SealedKind;
  resealed: number;
  /** Already sealed with the first key in the current format. */
  current: number;
  /** Opened by no configured key: left as they are. */
  unopened: number;
  /** Rewritten by a service between the read and the write: left to it (run rekey again to check). */
  changed: number;
}

export interface RekeyResult {
  counts: RekeyCount[];
  /** `<table> <row id>: <why>`, one per value left unopened. */
  failures: string[];
}

/**
 * Seals every sealed value again with the first key, in the current format, a
 * batch per transaction. Idempotent: a value already sealed so is not written.
 * A value no key opens is reported and left untouched; the others go on.
 */
export async function rekeySealedValues(store: DataStore, keys: DataKeys, batch: number): Promise<RekeyResult> {
  const counts: RekeyCount[] = [];
  const failures: string[] = [];
  for (const kind of SEALED_KINDS) {
    const count: RekeyCount = { kind, resealed: 0, current: 0, unopened: 0, changed: 0 };
    let after: string | null = null;
    for (;;) {
      const from: string | null = after;
      const values: SealedValue[] = await store.run((r) => r.sealedValues.page(kind, from, batch));
      if (values.length === 0) break;
      await store.transaction(async (r) => {
        for (const value of values) {
          let resealed: string | null;
          try {
            resealed = resealSecret(value.sealed, keys, value.label);
          } catch (error) {
            if (!(error instanceof SecretBoxError)) throw error;
            count.unopened += 1;
            failures.push(`${kind} ${value.rowId}: ${error.message}`);
            continue;
          }
          if (resealed === null) count.current += 1;
          else if (await r.sealedValues.replace(value, resealed)) count.resealed += 1;
          else count.changed += 1;
        }
      });
      after = values[values.length - 1]?.rowId ?? null;
    }
    counts.push(count);
  }
  return { counts, failures };
}
