import { parseDatabaseUrl, postgresConnection } from './database-url';

const READ_COMMITTED = '-c default_transaction_isolation=read\\ committed';

describe('postgresConnection', () => {
  it('leaves a URL without options as it is and sets READ COMMITTED', () => {
    expect(postgresConnection('postgres://app@db:5432/cds?sslmode=require')).toEqual({
      url: 'postgres://app@db:5432/cds?sslmode=require', options: READ_COMMITTED,
    });
  });

  it('moves the URL\'s options out of it and keeps them before READ COMMITTED, which wins a conflict', () => {
    const { url, options } = postgresConnection('postgres://app@db/cds?sslmode=require&options=-c%20statement_timeout%3D5s%20-c%20default_transaction_isolation%3Dserializable');
    expect(new URL(url).searchParams.get('options')).toBeNull();
    expect(new URL(url).searchParams.get('sslmode')).toBe('require');
    expect(options).toBe(`-c statement_timeout=5s -c default_transaction_isolation=serializable ${READ_COMMITTED}`);
  });

  it('treats empty options as none', () => {
    expect(postgresConnection('postgres://app@db/cds?options=').options).toBe(READ_COMMITTED);
  });
});

describe('parseDatabaseUrl', () => {
  it('tells PostgreSQL from SQLite and refuses anything else', () => {
    expect(parseDatabaseUrl('postgresql://db/cds')).toEqual({ kind: 'postgres', url: 'postgresql://db/cds' });
    expect(parseDatabaseUrl('sqlite://data/cds.db')).toEqual({ kind: 'sqlite', path: 'data/cds.db' });
    expect(parseDatabaseUrl('sqlite:cds.db')).toEqual({ kind: 'sqlite', path: 'cds.db' });
    expect(() => parseDatabaseUrl('mysql://db/cds')).toThrow('Database URL must be');
  });
});
