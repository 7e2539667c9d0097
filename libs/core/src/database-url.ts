// DATABASE_URL's grammar, read in one place: by the configuration (validated at
// start), the data library (which database to open) and the tools that show or
// check the database (cdctl, the all-in-one banner).

export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };
export type DatabaseKind = DatabaseTarget['kind'];

/** What a database URL must look like; the configuration prefixes it with the variable's name. */
export const DATABASE_URL_EXPECTATION = 'must be postgres://…, postgresql://… or sqlite:<path>';

export class InvalidDatabaseUrlError extends Error {
  override readonly name = 'InvalidDatabaseUrlError';
  readonly expectation = DATABASE_URL_EXPECTATION;

  constructor() {
    super(`Database URL ${DATABASE_URL_EXPECTATION}.`);
  }
}

/**
 * `postgres://…` / `postgresql://…` are passed to pg as they are;
 * `sqlite:<path>` (or `sqlite://<path>`) names a file, relative to the working directory unless absolute.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('sqlite:')) {
    const rest = url.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path !== '') return { kind: 'sqlite', path };
  } else if (/^postgres(ql)?:\/\//.test(url) && URL.canParse(url)) {
    return { kind: 'postgres', url };
  }
  throw new InvalidDatabaseUrlError();
}
