import { ConfigError } from './config-error';
import type { Config } from './config.types';
import { VARIABLES } from './config-variables';

type SettingKey = Exclude<keyof Config, 'mode'>;

/**
 * A setting a split-mode service may go without but this code path cannot:
 * loadConfig already refused its absence for the services that use it, so a
 * null here is a wiring mistake, reported by the variable's name.
 */
export function requiredSetting<K extends SettingKey>(config: Config, key: K): NonNullable<Config[K]> {
  const value = config[key];
  if (value === null || value === undefined) throw new ConfigError(VARIABLES[key].name, 'is required by this service');
  return value as NonNullable<Config[K]>;
}
