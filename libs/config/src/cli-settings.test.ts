import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliDefaultMode, loadCliSettings } from './cli-settings';
import { ConfigError } from './config-error';

describe('loadCliSettings', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cdctl-settings-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('defaults to the local API and no token', () => {
    expect(loadCliSettings({}, dataDir)).toEqual({ apiUrl: 'http://127.0.0.1:8080', operatorToken: null });
  });

  it('reads CDCTL_URL (without a trailing slash) and OPERATOR_TOKEN', () => {
    const env = { CDCTL_URL: ' https://cds.internal:8443/ ', OPERATOR_TOKEN: ' secret-token ' };
    expect(loadCliSettings(env, dataDir)).toEqual({ apiUrl: 'https://cds.internal:8443', operatorToken: 'secret-token' });
  });

  it('falls back to the all-in-one token file, the variable winning over it', () => {
    writeFileSync(join(dataDir, 'operator-token'), 'from-file\n');
    expect(loadCliSettings({}, dataDir).operatorToken).toBe('from-file');
    expect(loadCliSettings({ OPERATOR_TOKEN: 'from-env' }, dataDir).operatorToken).toBe('from-env');
  });

  it('refuses a CDCTL_URL that is not http(s), naming the variable', () => {
    expect(() => loadCliSettings({ CDCTL_URL: 'ftp://x' }, dataDir)).toThrow(ConfigError);
    expect(() => loadCliSettings({ CDCTL_URL: 'ftp://x' }, dataDir)).toThrow(/^Invalid configuration: CDCTL_URL must be a http:\/\/ or https:\/\/ URL/);
  });
});

describe('cliDefaultMode', () => {
  it('is split when AMQP_URL is set, else all-in-one', () => {
    expect(cliDefaultMode({ AMQP_URL: 'amqp://broker' })).toBe('split');
    expect(cliDefaultMode({ AMQP_URL: ' ' })).toBe('all-in-one');
    expect(cliDefaultMode({})).toBe('all-in-one');
  });
});
