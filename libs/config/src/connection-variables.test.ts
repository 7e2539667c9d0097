// The database and broker connection settings: CA bundles read and checked at
// start, the rules between them and the URLs, and the pool size.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { brokerConnection, databaseConnection } from './connections';
import { loadConfig, loadDatabaseConnection } from './load-config';
import { splitEnv } from '../../../test/support/split-env';
import { createThrowawayCa, type ThrowawayCa } from '../../../test/support/throwaway-ca';

let ca: ThrowawayCa;
let dir: string;
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(() => {
  ca = createThrowawayCa('Database CA');
  dir = mkdtempSync(join(tmpdir(), 'cds-ca-bundle-'));
});
afterAll(() => {
  ca.remove();
  rmSync(dir, { recursive: true, force: true });
});

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig({ mode: 'split', env: { ...splitEnv, ...env } });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('DATABASE_CA_BUNDLE and AMQP_CA_BUNDLE', () => {
  it('default to unset, and DATABASE_POOL_SIZE to the service\'s own size', () => {
    const config = loadConfig({ mode: 'split', env: splitEnv });
    expect(config).toMatchObject({ databaseCaBundle: null, amqpCaBundle: null, databasePoolSize: null });
    expect(databaseConnection(config)).toEqual({ url: splitEnv.DATABASE_URL });
    expect(brokerConnection(config)).toEqual({ url: splitEnv.AMQP_URL });
  });

  it('hand the file\'s certificates to the connections', () => {
    const bundle = file('bundle.pem', `# two CAs\n${ca.caPem}${createThrowawayCa('Other CA').caPem}`);
    const config = loadConfig({ mode: 'split', env: {
      ...splitEnv, DATABASE_URL: 'postgres://app@db.example.net/cds?sslmode=verify-full', DATABASE_CA_BUNDLE: bundle,
      AMQP_URL: 'amqps://app:secret@mq.example.net/cds', AMQP_CA_BUNDLE: ca.caFile,
    } });
    expect(config.databaseCaBundle).toBe(bundle);
    expect(databaseConnection(config).ca).toContain(ca.caPem.trim());
    expect(brokerConnection(config)).toEqual({ url: 'amqps://app:secret@mq.example.net/cds', ca: ca.caPem });
  });

  it.each([
    ['a missing file', () => join(dir, 'missing.pem'), 'must be a readable PEM file of CA certificates (ENOENT)'],
    ['a directory', () => dir, 'must be a readable PEM file of CA certificates (EISDIR)'],
    ['a file without a certificate', () => file('empty.pem', 'not a certificate\n'), 'must be a PEM file holding at least one certificate'],
    ['a private key', () => file('key.pem', ca.leaf.key), 'must be a PEM file holding at least one certificate'],
    ['a damaged certificate', () => file('bad.pem', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), 'must hold PEM certificates that parse'],
  ])('refuse %s at start, naming the variable and the path', (_what, path, problem) => {
    const bundle = path();
    expect(messageOf({ DATABASE_URL: 'postgres://db.example.net/cds?sslmode=require', DATABASE_CA_BUNDLE: bundle }))
      .toBe(`Invalid configuration: DATABASE_CA_BUNDLE ${problem} (got ${JSON.stringify(bundle)})`);
    expect(messageOf({ AMQP_URL: 'amqps://mq.example.net', AMQP_CA_BUNDLE: bundle }))
      .toBe(`Invalid configuration: AMQP_CA_BUNDLE ${problem} (got ${JSON.stringify(bundle)})`);
  });

  it.each([
    ['sqlite:./data/cds.sqlite', 'is set while DATABASE_URL names a SQLite file'],
    ['postgres://db/cds?sslmode=disable', 'is set while DATABASE_URL has sslmode=disable, which checks no certificate'],
    ['postgres://db/cds?sslmode=no-verify', 'is set while DATABASE_URL has sslmode=no-verify, which checks no certificate'],
    ['postgres://db/cds?ssl=0', 'is set while DATABASE_URL has sslmode=disable, which checks no certificate'],
    ['postgres://db/cds?sslmode=verify-full&sslrootcert=/etc/ca.pem', 'is set while DATABASE_URL names certificate files (sslrootcert, sslcert, sslkey): give the CAs one way'],
  ])('refuse a database bundle beside %s', (url, problem) => {
    expect(messageOf({ DATABASE_URL: url, DATABASE_CA_BUNDLE: ca.caFile })).toBe(`Invalid configuration: DATABASE_CA_BUNDLE ${problem}`);
  });

  it('accept a database bundle with every sslmode that checks the certificate, or none', () => {
    for (const query of ['', '?sslmode=prefer', '?sslmode=require', '?sslmode=verify-ca', '?sslmode=verify-full', '?ssl=true']) {
      const env = { ...splitEnv, DATABASE_URL: `postgres://db.example.net/cds${query}`, DATABASE_CA_BUNDLE: ca.caFile };
      expect(loadConfig({ mode: 'split', env }).databaseCaBundle).toBe(ca.caFile);
    }
  });

  it('refuse a broker bundle beside a plain amqp:// URL', () => {
    expect(messageOf({ AMQP_URL: 'amqp://mq.example.net', AMQP_CA_BUNDLE: ca.caFile }))
      .toBe('Invalid configuration: AMQP_CA_BUNDLE is set while AMQP_URL is not an amqps:// URL');
  });

  it('refuse an sslmode the data library does not know, without showing the URL', () => {
    expect(messageOf({ DATABASE_URL: 'postgres://app:secret@db/cds?sslmode=verify_full' }))
      .toBe('Invalid configuration: DATABASE_URL has sslmode="verify_full", not one of disable, prefer, require, verify-ca, verify-full, no-verify');
    expect(messageOf({ DATABASE_URL: 'postgres://app:secret@db/cds?ssl=yes' }))
      .toBe('Invalid configuration: DATABASE_URL has ssl="yes", not one of 0, 1, true, false, no-verify');
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('is a whole number from 1 to 1000', () => {
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, DATABASE_POOL_SIZE: '25' } }).databasePoolSize).toBe(25);
    expect(messageOf({ DATABASE_POOL_SIZE: '0' })).toBe('Invalid configuration: DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "0")');
    expect(messageOf({ DATABASE_POOL_SIZE: 'ten' })).toBe('Invalid configuration: DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "ten")');
  });
});

describe('loadDatabaseConnection (cdctl migrate)', () => {
  it('reads DATABASE_URL with its default and DATABASE_CA_BUNDLE, whatever else is unset', () => {
    expect(loadDatabaseConnection({})).toEqual({ url: 'sqlite:./data/custom-domains.sqlite' });
    expect(loadDatabaseConnection({ DATABASE_URL: 'postgres://db/cds', DATABASE_CA_BUNDLE: ca.caFile })).toEqual({ url: 'postgres://db/cds', ca: ca.caPem });
  });

  it('applies the same checks as the services', () => {
    expect(() => loadDatabaseConnection({ DATABASE_URL: 'mysql://db/cds' })).toThrow('Invalid configuration: DATABASE_URL must be postgres://…, postgresql://… or sqlite:<path> (got "mysql://db/cds")');
    expect(() => loadDatabaseConnection({ DATABASE_URL: 'sqlite:cds.db', DATABASE_CA_BUNDLE: ca.caFile })).toThrow('DATABASE_CA_BUNDLE is set while DATABASE_URL names a SQLite file');
    expect(() => loadDatabaseConnection({ DATABASE_URL: 'postgres://db/cds', DATABASE_CA_BUNDLE: join(dir, 'missing.pem') })).toThrow('DATABASE_CA_BUNDLE must be a readable PEM file');
  });
});
