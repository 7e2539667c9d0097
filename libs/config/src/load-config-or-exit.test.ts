import { randomBytes } from 'node:crypto';
import { loadConfigOrExit } from './load-config';

describe('loadConfigOrExit', () => {
  it('prints the one line to stderr and exits 1', () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const exit = jest.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${String(code)}`);
    });
    try {
      const env = {
        API_PORT: 'abc',
        DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        ASSERTION_DEPLOYMENT_KEY: randomBytes(32).toString('base64url'),
      };
      expect(() => loadConfigOrExit({ mode: 'all-in-one', env })).toThrow('exit 1');
      expect(written).toEqual(['Invalid configuration: API_PORT must be a port number (got "abc")\n']);
    } finally {
      write.mockRestore();
      exit.mockRestore();
    }
  });
});
