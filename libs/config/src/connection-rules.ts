import { InvalidSslModeError, namesCertificateFiles, parseDatabaseUrl, postgresSslMode, type PostgresSslMode } from '@cds/core';
import { ConfigError } from './config-error';
import type { Config } from './config.types';
import { VARIABLES } from './config-variables';

export type ConnectionSettings = Pick<Config, 'databaseUrl' | 'databaseCaBundle' | 'amqpUrl' | 'amqpCaBundle'>;

/** sslmode values that check no certificate, so a CA bundle beside them would mean nothing. */
const UNVERIFIED: readonly PostgresSslMode[] = ['disable', 'no-verify'];

/**
 * Rules between the connection variables, checked once each is parsed on its
 * own: DATABASE_URL asks for TLS in a way the data library applies, and a CA
 * bundle is set only where a connection uses it (one that nothing reads would
 * let the operator believe the connection is verified).
 */
export function checkConnectionRules(config: ConnectionSettings): void {
  const caBundle = VARIABLES.databaseCaBundle.name;
  const database = parseDatabaseUrl(config.databaseUrl);
  if (database.kind === 'sqlite') {
    if (config.databaseCaBundle !== null) throw new ConfigError(caBundle, 'is set while DATABASE_URL names a SQLite file');
  } else {
    let mode: PostgresSslMode | null;
    try {
      mode = postgresSslMode(database.url);
    } catch (err) {
      if (err instanceof InvalidSslModeError) throw new ConfigError(VARIABLES.databaseUrl.name, err.problem);
      throw err;
    }
    if (config.databaseCaBundle !== null && mode !== null && UNVERIFIED.includes(mode)) {
      throw new ConfigError(caBundle, `is set while DATABASE_URL has sslmode=${mode}, which checks no certificate`);
    }
    if (config.databaseCaBundle !== null && namesCertificateFiles(database.url)) {
      throw new ConfigError(caBundle, 'is set while DATABASE_URL names certificate files (sslrootcert, sslcert, sslkey): give the CAs one way');
    }
  }
  if (config.amqpCaBundle !== null && (config.amqpUrl === null || new URL(config.amqpUrl).protocol !== 'amqps:')) {
    throw new ConfigError(VARIABLES.amqpCaBundle.name, 'is set while AMQP_URL is not an amqps:// URL');
  }
}
