// What the all-in-one entry point reads of its environment, so that reading
// stays in this library: the configuration, with the secrets the environment
// leaves unset taken from (or created in) the data directory.
import { ensureAllInOneSecrets } from './all-in-one-secrets';
import type { Config } from './config.types';
import { loadConfigOrExit } from './load-config';

export interface AllInOneConfig {
  readonly config: Config;
  /** The file holding the operator token; null when OPERATOR_TOKEN set it. */
  readonly operatorTokenFile: string | null;
}

/** All-in-one configuration; a missing or invalid setting exits 1 as loadConfigOrExit does. */
export function loadAllInOneConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): AllInOneConfig {
  const secrets = ensureAllInOneSecrets(dataDir, env);
  const config = loadConfigOrExit({ mode: 'all-in-one', env: secrets.env });
  const fromFile = secrets.generated.includes('OPERATOR_TOKEN') || !env.OPERATOR_TOKEN;
  return { config, operatorTokenFile: fromFile ? secrets.operatorTokenFile : null };
}
