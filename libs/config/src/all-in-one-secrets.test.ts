import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAllInOneSecrets } from './all-in-one-secrets';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

describe('ensureAllInOneSecrets', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cds-secrets-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('generates the three secrets on first start, in files of mode 0600, and reuses them afterwards', () => {
    const dataDir = join(root, 'data', 'nested');
    const input = { LOG_LEVEL: 'debug' };
    const first = ensureAllInOneSecrets(dataDir, input);

    expect(first.generated).toEqual(['OPERATOR_TOKEN', 'DATA_ENCRYPTION_KEY', 'ASSERTION_DEPLOYMENT_KEY']);
    expect(first.operatorTokenFile).toBe(join(dataDir, 'operator-token'));
    expect(input).toEqual({ LOG_LEVEL: 'debug' });
    expect(first.env.LOG_LEVEL).toBe('debug');
    expect(first.env.OPERATOR_TOKEN).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.env.DATA_ENCRYPTION_KEY ?? '', 'base64')).toHaveLength(32);
    expect(Buffer.from(first.env.ASSERTION_DEPLOYMENT_KEY ?? '', 'base64url')).toHaveLength(32);
    for (const file of ['operator-token', 'data-encryption-key', 'assertion-deployment-key']) {
      expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(first.operatorTokenFile, 'utf8').trim()).toBe(first.env.OPERATOR_TOKEN);

    const second = ensureAllInOneSecrets(dataDir, input);
    expect(second.generated).toEqual([]);
    expect(second.env).toEqual(first.env);

    const config = loadConfig({ mode: 'all-in-one', env: second.env });
    expect(config.operatorToken).toBe(first.env.OPERATOR_TOKEN);
    expect(config.dataEncryptionKey).toHaveLength(32);
  });

  it('leaves secrets set in the environment alone and writes no file for them', () => {
    const env = { OPERATOR_TOKEN: 'from-the-environment', DATA_ENCRYPTION_KEY: '', ASSERTION_DEPLOYMENT_KEY: undefined };
    const result = ensureAllInOneSecrets(root, env);
    expect(result.env.OPERATOR_TOKEN).toBe('from-the-environment');
    expect(result.generated).toEqual(['DATA_ENCRYPTION_KEY', 'ASSERTION_DEPLOYMENT_KEY']);
    expect(() => statSync(join(root, 'operator-token'))).toThrow();
  });

  it('refuses an empty secret file', () => {
    writeFileSync(join(root, 'data-encryption-key'), '\n');
    expect(() => ensureAllInOneSecrets(root, {})).toThrow(ConfigError);
    expect(() => ensureAllInOneSecrets(root, {})).toThrow(/DATA_ENCRYPTION_KEY is unset and its file .* is empty/);
  });
});
