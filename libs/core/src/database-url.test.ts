import { InvalidDatabaseUrlError, parseDatabaseUrl } from './database-url';

describe('parseDatabaseUrl', () => {
  it.each([
    ['postgres://postgres@127.0.0.1:5432/test', { kind: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' }],
    ['postgresql://u:p@db/app?sslmode=require', { kind: 'postgres', url: 'postgresql://u:p@db/app?sslmode=require' }],
    ['postgresql://db/cds', { kind: 'postgres', url: 'postgresql://db/cds' }],
    ['sqlite:./data/custom-domains.sqlite', { kind: 'sqlite', path: './data/custom-domains.sqlite' }],
    ['sqlite:cds.db', { kind: 'sqlite', path: 'cds.db' }],
    ['sqlite://data/cds.db', { kind: 'sqlite', path: 'data/cds.db' }],
    ['sqlite:/var/lib/cds/db.sqlite', { kind: 'sqlite', path: '/var/lib/cds/db.sqlite' }],
    ['sqlite:///var/lib/cds/db.sqlite', { kind: 'sqlite', path: '/var/lib/cds/db.sqlite' }],
    ['sqlite::memory:', { kind: 'sqlite', path: ':memory:' }],
  ])('%s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toEqual(expected);
  });

  it.each(['', 'sqlite:', 'sqlite://', 'mysql://db/app', 'postgres:db', 'http://db', './file.sqlite'])('refuses %j, saying what it must be', (url) => {
    expect(() => parseDatabaseUrl(url)).toThrow(InvalidDatabaseUrlError);
    expect(() => parseDatabaseUrl(url)).toThrow('Database URL must be postgres://…, postgresql://… or sqlite:<path>.');
  });
});
