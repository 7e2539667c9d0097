// OPERATOR_PORT and OPERATOR_TOKEN (DECISIONS §4): the port is a port other
// than API_PORT and METRICS_PORT; the token follows PUT /operator/v1/token's
// rule, 32 to 512 printable characters without spaces.
import { ConfigError } from './config-error';
import { loadConfig, loadConfigOrExit } from './load-config';
import { splitEnv } from '../../../test/support/split-env';

function errorOf(env: Record<string, string | undefined>, mode: 'split' | 'all-in-one' = 'split'): ConfigError {
  try {
    loadConfig({ mode, env: { ...splitEnv, ...env } });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('OPERATOR_PORT', () => {
  it('is unset by default: the operator API stays on API_PORT', () => {
    expect(loadConfig({ mode: 'split', env: splitEnv }).operatorPort).toBeNull();
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, OPERATOR_PORT: ' ' } }).operatorPort).toBeNull();
  });

  it('reads a port', () => {
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, OPERATOR_PORT: '8082' } }).operatorPort).toBe(8082);
    expect(loadConfig({ mode: 'all-in-one', env: { ...splitEnv, OPERATOR_PORT: '9000', API_PORT: '9001' } }).operatorPort).toBe(9000);
  });

  it.each([
    [{ OPERATOR_PORT: 'eighty' }, 'Invalid configuration: OPERATOR_PORT must be a port number (got "eighty")'],
    [{ OPERATOR_PORT: '65536' }, 'Invalid configuration: OPERATOR_PORT must be a port number (got "65536")'],
    [{ OPERATOR_PORT: '8080' }, 'Invalid configuration: OPERATOR_PORT must differ from API_PORT (got "8080")'],
    [{ OPERATOR_PORT: '9000', API_PORT: '9000' }, 'Invalid configuration: OPERATOR_PORT must differ from API_PORT (got "9000")'],
    [{ OPERATOR_PORT: '9464' }, 'Invalid configuration: OPERATOR_PORT must differ from METRICS_PORT (got "9464")'],
  ])('refuses %j with one line naming it', (env, message) => {
    const error = errorOf(env);
    expect(error.variable).toBe('OPERATOR_PORT');
    expect(error.message).toBe(message);
  });

  it('stops an entry point with that line on stderr and exit code 1', () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    try {
      expect(() => loadConfigOrExit({ mode: 'split', env: { ...splitEnv, OPERATOR_PORT: '8080' } })).toThrow('exit 1');
      expect(written).toEqual(['Invalid configuration: OPERATOR_PORT must differ from API_PORT (got "8080")\n']);
    } finally {
      write.mockRestore();
      exit.mockRestore();
    }
  });
});

describe('OPERATOR_TOKEN', () => {
  it.each([32, 33, 200, 512])('accepts %i printable characters', (length) => {
    const token = `${'A1-_.~!'.repeat(80)}`.slice(0, length);
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, OPERATOR_TOKEN: token } }).operatorToken).toBe(token);
  });

  it.each([
    ['31 characters', 'x'.repeat(31)],
    ['513 characters', 'x'.repeat(513)],
    ['a space inside', `${'x'.repeat(20)} ${'y'.repeat(20)}`],
    ['a tab inside', `${'x'.repeat(20)}\t${'y'.repeat(20)}`],
    ['a non-ASCII character', `${'x'.repeat(40)}é`],
  ])('refuses a token with %s, in both modes, without showing it', (_name, token) => {
    for (const mode of ['split', 'all-in-one'] as const) {
      const error = errorOf({ OPERATOR_TOKEN: token }, mode);
      expect(error.variable).toBe('OPERATOR_TOKEN');
      expect(error.message).toBe('Invalid configuration: OPERATOR_TOKEN must be 32 to 512 printable characters without spaces');
      expect(error.message).not.toContain(token.trim());
    }
  });

  it('counts the token without the spaces around it (they are trimmed like every value)', () => {
    expect(errorOf({ OPERATOR_TOKEN: `  ${'x'.repeat(31)}  ` }).variable).toBe('OPERATOR_TOKEN');
    expect(loadConfig({ mode: 'split', env: { ...splitEnv, OPERATOR_TOKEN: ` ${'x'.repeat(32)} ` } }).operatorToken).toBe('x'.repeat(32));
  });
});
