import type { Config, Mode } from './config.types';
import { VARIABLES } from './config-variables';
import { loadConfigSubset } from './load-config';

type KeySettings = Partial<Pick<Config, 'dataEncryptionKey' | 'dataEncryptionKeys'>>;

/**
 * DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEYS are one setting written two
 * ways (the schema refuses both at once): each fills the other, so every
 * service seals with `dataEncryptionKey` and opens with `dataEncryptionKeys`.
 */
export function completeDataEncryptionKeys<T extends KeySettings>(settings: T): T {
  const { dataEncryptionKey: key, dataEncryptionKeys: keys } = settings;
  if (keys) return { ...settings, dataEncryptionKey: keys[0] };
  if (key) return { ...settings, dataEncryptionKeys: [key] };
  return settings;
}

/**
 * For `cdctl doctor`, which may run in a shell without the keys: the keys
 * validated as the services read them, or null when neither variable is set.
 */
export function loadDataEncryptionKeysIfSet(mode: Mode, env: NodeJS.ProcessEnv = process.env): readonly Buffer[] | null {
  if (!env[VARIABLES.dataEncryptionKey.name]?.trim() && !env[VARIABLES.dataEncryptionKeys.name]?.trim()) return null;
  return loadConfigSubset(['dataEncryptionKey', 'dataEncryptionKeys'], { mode, env }).dataEncryptionKeys;
}
