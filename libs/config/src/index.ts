export { checkAcmeDnsDelegation, parseDnsUpdateServer, parseTsigKey } from './acme-dns-delegation';
export { ACME_NUMBERED, type AcmeDirectorySettings, type ExternalAccountBinding } from './acme-directories';
export { loadAllInOneConfig, type AllInOneConfig } from './all-in-one-config';
export { ALL_IN_ONE_SECRETS, ensureAllInOneSecrets, type AllInOneSecret, type AllInOneSecrets } from './all-in-one-secrets';
export { configSchemaDoc, renderConfigDoc, type ConfigVariableDoc } from './config-doc';
export { ConfigError } from './config-error';
export { brokerConnection, databaseConnection, type Connection } from './connections';
export { buildConfigSchema } from './config-schema';
export {
  CERT_ISSUERS,
  LOG_FORMATS,
  LOG_LEVELS,
  MODES,
  SPLIT_SERVICES,
  TSIG_ALGORITHMS,
  type CertIssuer,
  type Config,
  type DnsUpdateServer,
  type LogFormat,
  type LogLevel,
  type Mode,
  type SplitServiceName,
  type TrustProxy,
  type TsigAlgorithm,
  type TsigKey,
} from './config.types';
export { parseDuration } from './duration';
export { operatorExposureWarning, proxyProtocolPeersWarning } from './exposure-warnings';
export { InvalidValueError } from './invalid-value';
export { loadDataEncryptionKeysIfSet } from './data-encryption-keys';
export { loadConfig, loadConfigOrExit, loadConfigSubset, loadDatabaseConnection, type LoadConfigOptions } from './load-config';
export { logColourAllowed } from './log-colour';
export { requiredSetting } from './required-setting';
export { CLI_DEFAULT_URL, CLI_URL_VARIABLE, cliDefaultMode, loadCliSettings, type CliSettings } from './cli-settings';
