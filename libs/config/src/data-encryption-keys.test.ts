import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAllInOneSecrets } from './all-in-one-secrets';
import { ConfigError } from './config-error';
import { loadDataEncryptionKeysIfSet } from './data-encryption-keys';
import { loadConfig, loadConfigSubset } from './load-config';

const newer = randomBytes(32);
const older = randomBytes(32);
const env = {
  OPERATOR_TOKEN: 'operator-token-for-tests-0123456789',
  ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
  AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
  DATABASE_URL: 'postgres://postgres@127.0.0.1/test',
};
const list = `${newer.toString('base64')}, ${older.toString('base64')}`;

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEYS', () => {
  it('DATA_ENCRYPTION_KEYS: the first key seals, every key opens', () => {
    const config = loadConfig({ mode: 'split', env: { ...env, DATA_ENCRYPTION_KEYS: list } });
    expect(config.dataEncryptionKey.equals(newer)).toBe(true);
    expect(config.dataEncryptionKeys.map((key) => key.toString('hex'))).toEqual([newer.toString('hex'), older.toString('hex')]);
  });

  it('DATA_ENCRYPTION_KEY alone is a list of one', () => {
    const config = loadConfig({ mode: 'split', env: { ...env, DATA_ENCRYPTION_KEY: older.toString('base64') } });
    expect(config.dataEncryptionKey.equals(older)).toBe(true);
    expect(config.dataEncryptionKeys).toHaveLength(1);
    expect(config.dataEncryptionKeys[0]?.equals(older)).toBe(true);
  });

  it('refuses both at once, naming the rule', () => {
    const message = messageOf(() => loadConfig({ mode: 'split', env: { ...env, DATA_ENCRYPTION_KEY: older.toString('base64'), DATA_ENCRYPTION_KEYS: list } }));
    expect(message).toBe('Invalid configuration: DATA_ENCRYPTION_KEY is set together with DATA_ENCRYPTION_KEYS: set only one (DATA_ENCRYPTION_KEYS lists every key, the one that seals first)');
  });

  it('refuses neither, naming both', () => {
    expect(messageOf(() => loadConfig({ mode: 'split', env }))).toBe('Invalid configuration: DATA_ENCRYPTION_KEY is required in split mode unless DATA_ENCRYPTION_KEYS is set');
  });

  it.each([
    ['a key of the wrong size', `${newer.toString('base64')},${randomBytes(16).toString('base64')}`, 'must be a comma list of keys, each exactly 32 bytes encoded as base64'],
    ['an empty item', `${newer.toString('base64')},`, 'must be a comma list of keys, each exactly 32 bytes encoded as base64'],
    ['the same key twice', `${newer.toString('base64')},${newer.toString('base64')}`, 'must not list the same key twice'],
  ])('refuses %s without echoing the keys', (_case, value, problem) => {
    const message = messageOf(() => loadConfig({ mode: 'split', env: { ...env, DATA_ENCRYPTION_KEYS: value } }));
    expect(message).toBe(`Invalid configuration: DATA_ENCRYPTION_KEYS ${problem}`);
    expect(message).not.toContain(newer.toString('base64'));
  });

  it('a subset with both names completes them the same way', () => {
    const subset = loadConfigSubset(['dataEncryptionKey', 'dataEncryptionKeys'], { mode: 'split', env: { ...env, DATA_ENCRYPTION_KEYS: list } });
    expect(subset.dataEncryptionKey.equals(newer)).toBe(true);
    expect(subset.dataEncryptionKeys).toHaveLength(2);
  });

  it('for the doctor: null when neither is set, else the keys, refusing both', () => {
    expect(loadDataEncryptionKeysIfSet('split', env)).toBeNull();
    expect(loadDataEncryptionKeysIfSet('split', { ...env, DATA_ENCRYPTION_KEYS: list })).toHaveLength(2);
    expect(() => loadDataEncryptionKeysIfSet('split', { ...env, DATA_ENCRYPTION_KEYS: list, DATA_ENCRYPTION_KEY: older.toString('base64') })).toThrow(ConfigError);
  });

  it('all-in-one start-up generates no DATA_ENCRYPTION_KEY when DATA_ENCRYPTION_KEYS is set', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cds-keys-'));
    try {
      const result = ensureAllInOneSecrets(dataDir, { DATA_ENCRYPTION_KEYS: list });
      expect(result.generated).toEqual(['OPERATOR_TOKEN', 'ASSERTION_DEPLOYMENT_KEY']);
      expect(readdirSync(dataDir)).not.toContain('data-encryption-key');
      expect(loadConfig({ mode: 'all-in-one', env: result.env }).dataEncryptionKeys).toHaveLength(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
