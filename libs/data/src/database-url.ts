export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };
export type DatabaseKind = DatabaseTarget['kind'];

/** Same grammar as DATABASE_URL in libs/config: `postgres(ql)://…`, or `sqlite:<path>` / `sqlite://<path>` (relative to the working directory). */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('sqlite:')) {
    const rest = url.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path !== '') return { kind: 'sqlite', path };
  } else if (/^postgres(ql)?:\/\//.test(url) && URL.canParse(url)) {
    return { kind: 'postgres', url };
  }
  throw new Error('Database URL must be postgres://…, postgresql://… or sqlite:<path>.');
}

/** Every transaction runs at READ COMMITTED whatever the database's default (set once per connection). */
const READ_COMMITTED = '-c default_transaction_isolation=read\\ committed';

/**
 * The URL and startup `options` of a PostgreSQL connection. pg lets an
 * `options` parameter in the URL replace the one in the configuration, so one
 * given there is moved out of the URL and put before ours: the operator's
 * settings are kept, and the isolation level the data layer relies on wins.
 */
export function postgresConnection(url: string): { url: string; options: string } {
  const parsed = new URL(url);
  const given = parsed.searchParams.get('options');
  if (given === null) return { url, options: READ_COMMITTED };
  parsed.searchParams.delete('options');
  return { url: parsed.toString(), options: given.trim() === '' ? READ_COMMITTED : `${given.trim()} ${READ_COMMITTED}` };
}
