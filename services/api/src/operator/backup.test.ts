import { pgDumpConnection } from './backup';

const CA = '/etc/cds-ca/database.pem';
const params = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('pgDumpConnection', () => {
  it('moves the password into PGPASSWORD, decoded, and passes a URL without TLS parameters unchanged', () => {
    const { url, env } = pgDumpConnection('postgres://cds:p%40ss%2Fword@db.internal:5432/cds', null);
    expect(url).toBe('postgres://cds@db.internal:5432/cds');
    expect(env).toEqual({ PGPASSWORD: 'p@ss/word' });
    expect(pgDumpConnection('postgres://cds@db.internal/cds', null).env).toEqual({});
  });

  it('with a CA bundle: PGSSLROOTCERT names it and libpq checks the host name as the service does', () => {
    for (const given of ['', '?sslmode=require', '?sslmode=prefer', '?sslmode=verify-full', '?ssl=true', '?sslmode=require&uselibpqcompat=true']) {
      const { url, env } = pgDumpConnection(`postgres://cds:secret@db.example.com/cds${given}`, CA);
      expect(env).toEqual({ PGPASSWORD: 'secret', PGSSLROOTCERT: CA });
      expect(params(url)).toEqual({ sslmode: 'verify-full' });
    }
  });

  it('with a CA bundle: verify-ca stays verify-ca (the chain, not the host name), and other parameters are kept', () => {
    const { url, env } = pgDumpConnection(`postgres://cds:secret@10.0.0.5/cds?sslmode=verify-ca&application_name=backup`, CA);
    expect(env.PGSSLROOTCERT).toBe(CA);
    expect(params(url)).toEqual({ sslmode: 'verify-ca', application_name: 'backup' });
  });

  it("without a CA bundle: the URL's mode as libpq reads it (pg's no-verify and ssl=true are libpq's require)", () => {
    const mode = (query: string) => {
      const { url, env } = pgDumpConnection(`postgres://cds@db.example.com/cds?${query}`, null);
      expect(env.PGSSLROOTCERT).toBeUndefined();
      return params(url);
    };
    expect(mode('sslmode=require')).toEqual({ sslmode: 'require' });
    expect(mode('sslmode=verify-full')).toEqual({ sslmode: 'verify-full' });
    expect(mode('sslmode=disable')).toEqual({ sslmode: 'disable' });
    expect(mode('sslmode=no-verify')).toEqual({ sslmode: 'require' });
    expect(mode('ssl=true')).toEqual({ sslmode: 'require' });
    expect(mode('ssl=1')).toEqual({ sslmode: 'require' });
    expect(mode('ssl=false')).toEqual({ sslmode: 'disable' });
    expect(mode('sslmode=require&uselibpqcompat=true')).toEqual({ sslmode: 'require' });
  });

  it('leaves a URL that names certificate files to libpq, which reads them as pg does', () => {
    const given = 'postgres://cds@db.example.com/cds?sslmode=verify-full&sslrootcert=%2Fca%2Froot.pem';
    const { url, env } = pgDumpConnection(given, null);
    expect(url).toBe(given);
    expect(env).toEqual({});
  });
});
