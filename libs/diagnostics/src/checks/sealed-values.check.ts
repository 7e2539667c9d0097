// Whether the configured data encryption keys open what is stored: a key left
// out of DATA_ENCRYPTION_KEYS (or a wrong one) shows here before a service needs it.
import { decryptSecret, isSealedWithFirstKey, SecretBoxError } from '@cds/core';
import { SEALED_KINDS, type DataStore } from '@cds/data';
import type { Check } from '../check';
import { CHECK_NAMES } from '../check-names';
import { sealedValuesFinding, type SealedSample } from '../sealed-values-finding';

const TIMEOUT_MS = 5000;
/** Values read per kind: enough to catch a missing key, few enough for every run. */
export const SEALED_SAMPLE_SIZE = 20;

export function sealedValuesCheck(store: DataStore, keys: readonly Buffer[] | null): Check {
  return {
    name: CHECK_NAMES.sealedValues,
    timeoutMs: TIMEOUT_MS,
    run: async () => {
      if (keys === null || keys.length === 0) return sealedValuesFinding(null);
      const samples: SealedSample[] = [];
      for (const kind of SEALED_KINDS) {
        const values = await store.run((r) => r.sealedValues.page(kind, null, SEALED_SAMPLE_SIZE));
        const sample: SealedSample = { kind, opened: 0, unopened: 0, stale: 0 };
        for (const value of values) {
          try {
            decryptSecret(value.sealed, keys, value.label);
            sample.opened += 1;
            if (!isSealedWithFirstKey(value.sealed, keys)) sample.stale += 1;
          } catch (error) {
            if (!(error instanceof SecretBoxError)) throw error;
            sample.unopened += 1;
          }
        }
        samples.push(sample);
      }
      return sealedValuesFinding(samples);
    },
  };
}
