// The grammar of DATABASE_URL is libs/core's (parseDatabaseUrl); its kinds are
// re-exported for the data library's files.
import { namesCertificateFiles, postgresSslMode, type PostgresSslMode } from '@cds/core';

export type { DatabaseKind, DatabaseTarget } from '@cds/core';

/** Every transaction runs at READ COMMITTED whatever the database's default (set once per connection). */
const READ_COMMITTED = '-c default_transaction_isolation=read\\ committed';

/** pg's own TLS parameters: in the URL they would replace the TLS options given beside it. */
const TLS_PARAMS = ['sslmode', 'ssl', 'uselibpqcompat'] as const;

/** The TLS options handed to pg: false for none, or node:tls options (`ca` replaces node's CAs). */
export type PostgresTls = false | { ca?: string; rejectUnauthorized?: boolean; checkServerIdentity?: () => undefined };

export interface PostgresConnection {
  url: string;
  options: string;
  /** Absent: the URL alone decides (no TLS parameter, or certificate files pg reads itself). */
  ssl?: PostgresTls;
}

/**
 * The TLS options of each sslmode. pg would take `require` (and `prefer`,
 * `verify-ca`) for `verify-full`; here `verify-ca` checks the chain without
 * the host name, as libpq does, for servers whose certificate does not name
 * the address the service connects to.
 */
function tlsOptions(mode: PostgresSslMode, ca: string | undefined): PostgresTls {
  const trusted = ca === undefined ? {} : { ca };
  switch (mode) {
    case 'disable':
      return false;
    case 'no-verify':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      return { ...trusted, checkServerIdentity: () => undefined };
    default:
      return trusted;
  }
}

/**
 * The URL, startup `options` and TLS options of a PostgreSQL connection. pg lets
 * an `options` parameter in the URL replace the one in the configuration, so
 * one given there is moved out of the URL and put before ours: the operator's
 * settings are kept, and the isolation level the data layer relies on wins.
 * Likewise its TLS parameters (sslmode, ssl) would replace the `ssl` option that
 * carries `ca` (DATABASE_CA_BUNDLE): they are moved out and turned into it. A
 * CA without an sslmode means `verify-full`.
 */
export function postgresConnection(url: string, ca?: string): PostgresConnection {
  const parsed = new URL(url);
  const given = parsed.searchParams.get('options');
  const options = given === null || given.trim() === '' ? READ_COMMITTED : `${given.trim()} ${READ_COMMITTED}`;
  parsed.searchParams.delete('options');
  const mode = postgresSslMode(url) ?? (ca === undefined ? null : 'verify-full');
  if (mode === null || namesCertificateFiles(url)) return { url: given === null ? url : parsed.toString(), options };
  for (const name of TLS_PARAMS) parsed.searchParams.delete(name);
  return { url: parsed.toString(), options, ssl: tlsOptions(mode, ca) };
}
