// What reaches pg: TypeORM hands the pool `connectionString` and the `extra`
// options, and pg's ConnectionParameters lets what it parses from the
// connection string replace them. A CA given beside `sslmode=require` must
// survive that (this machine's PostgreSQL has no TLS, so no handshake is made).
import ConnectionParameters from 'pg/lib/connection-parameters';
import { dataSourceOptions } from './data-store';

const CA = '-----BEGIN CERTIFICATE-----\n(a CA)\n-----END CERTIFICATE-----\n';

/** pg's view of the connection, as TypeORM's PostgresDriver.createPool builds it. */
function driverParameters(url: string, ca?: string): { ssl: unknown; host: string; database: string; options: string } {
  const options = dataSourceOptions({ kind: 'postgres', url }, { url, ...(ca === undefined ? {} : { ca }) });
  if (options.type !== 'postgres') throw new Error('expected PostgreSQL options');
  return new ConnectionParameters({ connectionString: options.url, max: options.poolSize, ...options.extra }) as never;
}

describe('PostgreSQL driver options', () => {
  it('carry DATABASE_CA_BUNDLE\'s certificates to pg with sslmode=require in the URL', () => {
    const parameters = driverParameters('postgres://app:pw@db.example.net:5432/cds?sslmode=require', CA);
    expect(parameters.ssl).toEqual({ ca: CA });
    expect([parameters.host, parameters.database]).toEqual(['db.example.net', 'cds']);
    expect(parameters.options).toContain('default_transaction_isolation=read\\ committed');
  });

  it('carry them with no sslmode at all, verifying the server', () => {
    expect(driverParameters('postgres://app@db.example.net/cds', CA).ssl).toEqual({ ca: CA });
  });

  it('turn TLS off for sslmode=disable and leave it off without TLS parameters', () => {
    expect(driverParameters('postgres://app@db/cds?sslmode=disable').ssl).toBe(false);
    expect(driverParameters('postgres://app@db/cds').ssl).toBe(false);
  });
});
