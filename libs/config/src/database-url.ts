import { InvalidValueError } from './invalid-value';

export type DatabaseUrl = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

const EXPECTED = 'must be postgres://…, postgresql://… or sqlite:<path>';

/**
 * `postgres://…` / `postgresql://…` are passed to pg as they are;
 * `sqlite:<path>` (or `sqlite://<path>`) names a file, relative to the working directory unless absolute.
 */
export function parseDatabaseUrl(url: string): DatabaseUrl {
  if (url.startsWith('sqlite:')) {
    const rest = url.slice('sqlite:'.length);
    const path = rest.startsWith('//') ? rest.slice(2) : rest;
    if (path === '') throw new InvalidValueError(EXPECTED);
    return { kind: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(url) && URL.canParse(url)) return { kind: 'postgres', url };
  throw new InvalidValueError(EXPECTED);
}
