export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

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
