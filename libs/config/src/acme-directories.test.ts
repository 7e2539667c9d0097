import { randomBytes } from 'node:crypto';
import { ConfigError } from './config-error';
import { configSchemaDoc } from './config-doc';
import { loadConfig, loadConfigSubset } from './load-config';
import { splitEnv } from '../../../test/support/split-env';

const LE = 'https://acme-v02.api.letsencrypt.org/directory';
const ZEROSSL = 'https://acme.zerossl.com/v2/DV90';
const HMAC = randomBytes(32).toString('base64url');

const load = (env: Record<string, string>) => loadConfig({ mode: 'split', env: { ...splitEnv, ...env } });

function errorOf(env: Record<string, string>): ConfigError {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('ACME_DIRECTORY_URL and its numbered variables', () => {
  it('reads one directory as before: no binding, identities from the directory', () => {
    expect(load({ ACME_DIRECTORY_URL: LE }).acmeDirectories).toEqual([{ url: LE, eab: null, caaIdentities: null }]);
  });

  it('reads a comma list in order, each directory with its own binding and CAA identities', () => {
    const config = load({
      ACME_DIRECTORY_URL: ` ${LE} , ${ZEROSSL} `,
      ACME_EAB_KID_2: 'kid-2', ACME_EAB_HMAC_KEY_2: HMAC, ACME_CAA_IDENTITY_2: 'Sectigo.com, usertrust.com',
    });
    expect(config.acmeDirectories).toEqual([
      { url: LE, eab: null, caaIdentities: null },
      { url: ZEROSSL, eab: { kid: 'kid-2', hmacKey: HMAC }, caaIdentities: ['sectigo.com', 'usertrust.com'] },
    ]);
    expect(Object.isFrozen(config.acmeDirectories[1]?.eab)).toBe(true);
  });

  it('reads them for loadConfigSubset too', () => {
    const subset = loadConfigSubset(['acmeDirectories'], { mode: 'split', env: { ACME_DIRECTORY_URL: `${LE},${ZEROSSL}`, ACME_CAA_IDENTITY_1: 'letsencrypt.org' } });
    expect(subset.acmeDirectories.map((d) => d.caaIdentities)).toEqual([['letsencrypt.org'], null]);
  });

  it.each([
    [{ ACME_DIRECTORY_URL: `${LE},` }, 'ACME_DIRECTORY_URL', 'ACME_DIRECTORY_URL must be one or more directory URLs separated by commas'],
    [{ ACME_DIRECTORY_URL: `${LE},ftp://ca.example` }, 'ACME_DIRECTORY_URL', 'ACME_DIRECTORY_URL must list https:// or http:// URLs ("ftp://ca.example" is not one)'],
    [{ ACME_DIRECTORY_URL: `${LE},${LE}` }, 'ACME_DIRECTORY_URL', `ACME_DIRECTORY_URL lists ${LE} twice`],
    [{ ACME_EAB_KID_1: 'kid' }, 'ACME_EAB_HMAC_KEY_1', 'ACME_EAB_HMAC_KEY_1 is required when ACME_EAB_KID_1 is set'],
    [{ ACME_EAB_HMAC_KEY_1: HMAC }, 'ACME_EAB_KID_1', 'ACME_EAB_KID_1 is required when ACME_EAB_HMAC_KEY_1 is set'],
    [{ ACME_EAB_KID_2: 'kid', ACME_EAB_HMAC_KEY_2: HMAC }, 'ACME_EAB_HMAC_KEY_2', 'ACME_EAB_HMAC_KEY_2 names directory 2, but ACME_DIRECTORY_URL lists 1'],
    [{ ACME_CAA_IDENTITY_0: 'letsencrypt.org' }, 'ACME_CAA_IDENTITY_0', 'ACME_CAA_IDENTITY_0 must end in the position of a directory'],
    [{ ACME_EAB_KID_1: 'two words', ACME_EAB_HMAC_KEY_1: HMAC }, 'ACME_EAB_KID_1', 'ACME_EAB_KID_1 must be 1 to 256 printable characters without spaces (got "two words")'],
    [{ ACME_CAA_IDENTITY_1: 'not a domain' }, 'ACME_CAA_IDENTITY_1', 'ACME_CAA_IDENTITY_1 must be a comma list of CAA issuer domains ("not a domain" is not one)'],
  ])('%j is refused at start, naming %s', (env, variable, expected) => {
    const error = errorOf(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(expected);
    expect(error.message).not.toContain('\n');
  });

  it('names a bad HMAC key without showing it', () => {
    const bad = `${HMAC.slice(0, 10)}!`;
    const error = errorOf({ ACME_EAB_KID_1: 'kid', ACME_EAB_HMAC_KEY_1: bad });
    expect(error.message).toBe('Invalid configuration: ACME_EAB_HMAC_KEY_1 must be base64url text of at least 16 bytes, as the CA gave it');
    expect(error.message).not.toContain(bad);
  });

  it('ignores empty numbered variables, as any empty variable', () => {
    expect(load({ ACME_EAB_KID_3: ' ', ACME_EAB_HMAC_KEY_3: '' }).acmeDirectories).toHaveLength(1);
  });

  it('documents the numbered variables right after ACME_DIRECTORY_URL', () => {
    const names = configSchemaDoc().map((v) => v.name);
    const at = names.indexOf('ACME_DIRECTORY_URL');
    expect(names.slice(at, at + 4)).toEqual(['ACME_DIRECTORY_URL', 'ACME_EAB_KID_<n>', 'ACME_EAB_HMAC_KEY_<n>', 'ACME_CAA_IDENTITY_<n>']);
  });
});
