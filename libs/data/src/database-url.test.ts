import { postgresConnection } from './database-url';

const READ_COMMITTED = '-c default_transaction_isolation=read\\ committed';
const CA = '-----BEGIN CERTIFICATE-----\n(a CA)\n-----END CERTIFICATE-----\n';

describe('postgresConnection', () => {
  it('leaves a URL without options or TLS parameters as it is and sets READ COMMITTED', () => {
    expect(postgresConnection('postgres://app@db:5432/cds')).toEqual({ url: 'postgres://app@db:5432/cds', options: READ_COMMITTED });
  });

  it('moves the URL\'s options out of it and keeps them before READ COMMITTED, which wins a conflict', () => {
    const { url, options } = postgresConnection('postgres://app@db/cds?application_name=cds&options=-c%20statement_timeout%3D5s%20-c%20default_transaction_isolation%3Dserializable');
    expect(new URL(url).searchParams.get('options')).toBeNull();
    expect(new URL(url).searchParams.get('application_name')).toBe('cds');
    expect(options).toBe(`-c statement_timeout=5s -c default_transaction_isolation=serializable ${READ_COMMITTED}`);
  });

  it('treats empty options as none', () => {
    expect(postgresConnection('postgres://app@db/cds?options=').options).toBe(READ_COMMITTED);
  });
});

describe('postgresConnection TLS', () => {
  // pg would let the URL's sslmode replace the ssl option: it must leave the URL.
  it.each([
    ['sslmode=require', undefined, {}],
    ['sslmode=require', CA, { ca: CA }],
    ['sslmode=prefer', CA, { ca: CA }],
    ['sslmode=verify-full', CA, { ca: CA }],
    ['ssl=true', CA, { ca: CA }],
    ['sslmode=no-verify', undefined, { rejectUnauthorized: false }],
    ['sslmode=disable', undefined, false],
    ['ssl=0', undefined, false],
    ['sslmode=require&uselibpqcompat=true', CA, { ca: CA }],
  ])('%s with %s CA: the TLS options say it and the URL no longer does', (query, ca, ssl) => {
    const connection = postgresConnection(`postgres://app:pw@db.example.net/cds?${query}&application_name=cds`, ca);
    expect(connection.ssl).toEqual(ssl);
    const params = new URL(connection.url).searchParams;
    expect([params.get('sslmode'), params.get('ssl'), params.get('uselibpqcompat'), params.get('application_name')]).toEqual([null, null, null, 'cds']);
  });

  it('verify-ca checks the chain against the CA but not the host name', () => {
    const { ssl } = postgresConnection('postgres://app@10.1.2.3/cds?sslmode=verify-ca', CA);
    expect(ssl).toMatchObject({ ca: CA });
    if (ssl === false || ssl === undefined) throw new Error('expected TLS options');
    expect(ssl.rejectUnauthorized).not.toBe(false);
    expect(ssl.checkServerIdentity?.()).toBeUndefined();
  });

  it('a CA without an sslmode means verify-full', () => {
    expect(postgresConnection('postgres://app@db.example.net/cds', CA)).toEqual({ url: 'postgres://app@db.example.net/cds', options: READ_COMMITTED, ssl: { ca: CA } });
  });

  it('leaves TLS to pg when the URL names certificate files it reads itself', () => {
    const url = 'postgres://app@db/cds?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem';
    expect(postgresConnection(url)).toEqual({ url, options: READ_COMMITTED });
  });
});
