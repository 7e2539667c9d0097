import { ConfigError } from './config-error';
import type { Config } from './config.types';
import { VARIABLES } from './config-variables';

/**
 * The one rule between variables, checked once each is parsed on its own: the
 * operator listener runs in the process that also listens on API_PORT and
 * METRICS_PORT, so its port must be another one.
 */
export function checkPortConflicts(config: Pick<Config, 'apiPort' | 'metricsPort' | 'operatorPort'>): void {
  const port = config.operatorPort;
  if (port === null) return;
  for (const key of ['apiPort', 'metricsPort'] as const) {
    if (config[key] === port) throw new ConfigError(VARIABLES.operatorPort.name, `must differ from ${VARIABLES[key].name} (got "${port}")`);
  }
}
