import { loadConfig } from './load-config';
import { splitEnv } from '../../../test/support/split-env';

const SECRET = Buffer.alloc(32, 7).toString('base64');
const KEY = `cds-acme:hmac-sha256:${SECRET}`;
const ALL = { ACME_DNS_ZONE: 'Acme.Edge.Example.com.', ACME_DNS_UPDATE_SERVER: '192.0.2.53:5353', ACME_DNS_TSIG_KEY: KEY };

const load = (env: NodeJS.ProcessEnv) => loadConfig({ mode: 'split', env: { ...splitEnv, ...env } });
const errorOf = (env: NodeJS.ProcessEnv): Error => {
  try {
    load(env);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a configuration error');
};

describe('ACME_DNS_ZONE, ACME_DNS_UPDATE_SERVER, ACME_DNS_TSIG_KEY (DECISIONS §13)', () => {
  it('are unset by default: HTTP-01 alone', () => {
    const config = load({});
    expect([config.acmeDnsZone, config.acmeDnsUpdateServer, config.acmeDnsTsigKey]).toEqual([null, null, null]);
  });

  it('are read together', () => {
    const config = load(ALL);
    expect(config.acmeDnsZone).toBe('acme.edge.example.com');
    expect(config.acmeDnsUpdateServer).toEqual({ host: '192.0.2.53', port: 5353 });
    expect(config.acmeDnsTsigKey).toEqual({ name: 'cds-acme', algorithm: 'hmac-sha256', secret: SECRET });
  });

  it.each([
    ['ns1.example.com', { host: 'ns1.example.com', port: 53 }],
    ['NS1.Example.com:8053', { host: 'ns1.example.com', port: 8053 }],
    ['[2001:db8::53]:5353', { host: '2001:db8::53', port: 5353 }],
    ['2001:db8::53', { host: '2001:db8::53', port: 53 }],
  ])('ACME_DNS_UPDATE_SERVER=%s', (text, server) => {
    expect(load({ ...ALL, ACME_DNS_UPDATE_SERVER: text }).acmeDnsUpdateServer).toEqual(server);
  });

  it.each(['ns1.example.com:0', 'ns1.example.com:65536', 'http://ns1.example.com', '[not-an-ip]:53', 'a:b:c'])('refuses ACME_DNS_UPDATE_SERVER=%s', (text) => {
    expect(errorOf({ ...ALL, ACME_DNS_UPDATE_SERVER: text }).message).toMatch(/^Invalid configuration: ACME_DNS_UPDATE_SERVER must be host\[:port\]/);
  });

  it('takes the algorithm with its trailing dot, in any case, and the other two hashes', () => {
    expect(load({ ...ALL, ACME_DNS_TSIG_KEY: `k.example:HMAC-SHA512.:${SECRET}` }).acmeDnsTsigKey).toEqual({ name: 'k.example', algorithm: 'hmac-sha512', secret: SECRET });
    expect(load({ ...ALL, ACME_DNS_TSIG_KEY: `k:hmac-sha384:${SECRET}` }).acmeDnsTsigKey?.algorithm).toBe('hmac-sha384');
  });

  it.each([
    [`cds-acme:${SECRET}`, 'must be name:algorithm:secret'],
    [`cds-acme:hmac-md5:${SECRET}`, 'names algorithm "hmac-md5": it must be one of hmac-sha256, hmac-sha384, hmac-sha512'],
    ['cds-acme:hmac-sha256:not base64!', 'must end with the key\'s secret in base64, of at least 16 bytes'],
    [`cds-acme:hmac-sha256:${Buffer.alloc(8, 9).toString('base64')}`, "must end with the key's secret in base64, of at least 16 bytes"],
    [`bad_name!:hmac-sha256:${SECRET}`, 'must start with the key name'],
  ])('refuses ACME_DNS_TSIG_KEY=%s, never echoing the secret', (text, problem) => {
    const message = errorOf({ ...ALL, ACME_DNS_TSIG_KEY: text }).message;
    expect(message).toContain(`Invalid configuration: ACME_DNS_TSIG_KEY ${problem}`);
    const secret = text.split(':').at(-1) ?? '';
    expect(message).not.toContain(secret);
  });

  it.each([
    [{ ACME_DNS_ZONE: 'acme.example.com' }, 'ACME_DNS_UPDATE_SERVER is required when ACME_DNS_ZONE is set'],
    [{ ACME_DNS_ZONE: 'acme.example.com', ACME_DNS_UPDATE_SERVER: 'ns1.example.com' }, 'ACME_DNS_TSIG_KEY is required when ACME_DNS_ZONE and ACME_DNS_UPDATE_SERVER are set'],
    [{ ACME_DNS_TSIG_KEY: KEY }, 'ACME_DNS_ZONE is required when ACME_DNS_TSIG_KEY is set'],
  ])('the three go together: %j', (env, message) => {
    expect(errorOf(env).message).toContain(`Invalid configuration: ${message}`);
  });
});
