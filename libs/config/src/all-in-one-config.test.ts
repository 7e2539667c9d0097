import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAllInOneConfig } from './all-in-one-config';

describe('loadAllInOneConfig', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cds-all-in-one-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes an unset operator token from its file in the data directory, and names that file', () => {
    const { config, operatorTokenFile } = loadAllInOneConfig(dataDir, {});
    expect(config.mode).toBe('all-in-one');
    expect(operatorTokenFile).toBe(join(dataDir, 'operator-token'));
    expect(readFileSync(join(dataDir, 'operator-token'), 'utf8').trim()).toBe(config.operatorToken);
  });

  it('names no file when OPERATOR_TOKEN sets the token', () => {
    const token = 'a'.repeat(43);
    const { config, operatorTokenFile } = loadAllInOneConfig(dataDir, { OPERATOR_TOKEN: token });
    expect(config.operatorToken).toBe(token);
    expect(operatorTokenFile).toBeNull();
  });
});
