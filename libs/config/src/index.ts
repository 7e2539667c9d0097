export { loadAllInOneConfig, type AllInOneConfig } from './all-in-one-config';
export { ALL_IN_ONE_SECRETS, ensureAllInOneSecrets, type AllInOneSecret, type AllInOneSecrets } from './all-in-one-secrets';
export { configSchemaDoc, renderConfigDoc, type ConfigVariableDoc } from './config-doc';
export { ConfigError } from './config-error';
export { buildConfigSchema } from './config-schema';
export {
  CERT_ISSUERS,
  LOG_FORMATS,
  LOG_LEVELS,
  MODES,
  type CertIssuer,
  type Config,
  type LogFormat,
  type LogLevel,
  type Mode,
  type TrustProxy,
} from './config.types';
export { parseDatabaseUrl, type DatabaseUrl } from './database-url';
export { parseDuration } from './duration';
export { operatorExposureWarning, proxyProtocolPeersWarning } from './exposure-warnings';
export { InvalidValueError } from './invalid-value';
export { loadConfig, loadConfigOrExit, loadConfigSubset, loadDatabaseUrl, type LoadConfigOptions } from './load-config';
export { logColourAllowed } from './log-colour';
export { CLI_DEFAULT_URL, CLI_URL_VARIABLE, cliDefaultMode, loadCliSettings, type CliSettings } from './cli-settings';
