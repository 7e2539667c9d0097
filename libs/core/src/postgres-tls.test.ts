import { InvalidSslModeError, namesCertificateFiles, postgresSslMode } from './postgres-tls';

describe('postgresSslMode', () => {
  it.each([
    ['postgres://db/cds', null],
    ['postgres://db/cds?sslmode=disable', 'disable'],
    ['postgres://db/cds?sslmode=require', 'require'],
    ['postgres://db/cds?sslmode=verify-ca', 'verify-ca'],
    ['postgres://db/cds?sslmode=verify-full&ssl=0', 'verify-full'],
    ['postgres://db/cds?sslmode=no-verify', 'no-verify'],
    ['postgres://db/cds?ssl=true', 'verify-full'],
    ['postgres://db/cds?ssl=1', 'verify-full'],
    ['postgres://db/cds?ssl=0', 'disable'],
    ['postgres://db/cds?ssl=false', 'disable'],
    ['postgres://db/cds?ssl=no-verify', 'no-verify'],
  ])('%s asks for %s', (url, mode) => {
    expect(postgresSslMode(url)).toBe(mode);
  });

  it.each([
    ['postgres://db/cds?sslmode=allow', 'Database URL has sslmode="allow", not one of disable, prefer, require, verify-ca, verify-full, no-verify.'],
    ['postgres://db/cds?sslmode=', 'Database URL has sslmode="", not one of disable, prefer, require, verify-ca, verify-full, no-verify.'],
    ['postgres://db/cds?ssl=on', 'Database URL has ssl="on", not one of 0, 1, true, false, no-verify.'],
  ])('refuses %s', (url, message) => {
    expect(() => postgresSslMode(url)).toThrow(InvalidSslModeError);
    expect(() => postgresSslMode(url)).toThrow(message);
  });
});

describe('namesCertificateFiles', () => {
  it('is true for sslrootcert, sslcert or sslkey only', () => {
    expect(namesCertificateFiles('postgres://db/cds?sslmode=require')).toBe(false);
    for (const param of ['sslrootcert', 'sslcert', 'sslkey']) expect(namesCertificateFiles(`postgres://db/cds?${param}=/etc/x.pem`)).toBe(true);
  });
});
