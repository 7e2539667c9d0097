import { PassThrough } from 'node:stream';
import { childLogger, createLogger, ignoreClosedReader } from './create-logger';
import { REDACTED } from './redact';

function capture(level: string) {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const logger = createLogger({ service: 'api', level, stream });
  // Let winston's streams drain before reading what reached the output.
  const lines = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes one JSON line with timestamp, level, service and message', async () => {
    const { logger, lines } = capture('info');
    logger.info('domain created', { domain_id: 'd1' });
    expect(await lines()).toEqual([
      {
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        level: 'info',
        service: 'api',
        message: 'domain created',
        domain_id: 'd1',
      },
    ]);
  });

  it('drops lines below the level', async () => {
    const { logger, lines } = capture('warn');
    logger.info('quiet');
    logger.warn('loud');
    expect((await lines()).map((line) => line.message)).toEqual(['loud']);
  });

  it('redacts secrets in fields and in the message', async () => {
    const { logger, lines } = capture('info');
    const headers = { authorization: 'Bearer cd_4fTq9ZxY2bN7mK1pR8sV3wL6hJ0cD5gE9aB2nM4kQ7t', accept: 'application/json' };
    logger.info('webhook secret whsec_abcdefghijklmnop rotated', { headers, secret: 'whsec_x', nested: { cookie: 'c' } });
    const [line] = await lines();
    expect(line).toMatchObject({
      message: `webhook secret whsec_${REDACTED} rotated`,
      headers: { authorization: REDACTED, accept: 'application/json' },
      secret: REDACTED,
      nested: { cookie: REDACTED },
    });
    expect(headers.authorization).toMatch(/^Bearer cd_/);
  });

  it('logs an Error with its stack, masked', async () => {
    const { logger, lines } = capture('info');
    logger.error(new Error('upstream refused cd_4fTq9ZxY2bN7mK1pR8sV3wL6hJ0cD5gE9aB2nM4kQ7t'));
    const [line] = await lines();
    expect(line?.message).toBe(`upstream refused cd_${REDACTED}`);
    expect(line?.stack).toEqual(expect.stringContaining(`Error: upstream refused cd_${REDACTED}`));
  });

  it('child loggers add the request id to every line', async () => {
    const { logger, lines } = capture('info');
    const child = childLogger(logger, { request_id: 'req-1' });
    child.info('handled', { status: 200 });
    logger.child({ request_id: 'req-2', token: 'abc' }).info('raw winston child');
    expect(await lines()).toEqual([
      expect.objectContaining({ service: 'api', request_id: 'req-1', message: 'handled', status: 200 }),
      expect.objectContaining({ service: 'api', request_id: 'req-2', token: REDACTED }),
    ]);
  });

  describe('format', () => {
    /** A stream that says it is a terminal, as process.stdout does on one. */
    function output(isTTY: boolean) {
      const stream = Object.assign(new PassThrough(), { isTTY });
      const chunks: string[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
      const text = async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return chunks.join('');
      };
      return { stream, text };
    }
    const READABLE = /^\d\d:\d\d:\d\d\.\d{3} info {2}api domain created domain_id=d1 secret=\[redacted\]\n$/;
    const ESC = '\x1b';

    it('auto: readable and coloured on a terminal, JSON elsewhere', async () => {
      const terminal = output(true);
      createLogger({ service: 'api', level: 'info', stream: terminal.stream }).info('domain created', { domain_id: 'd1' });
      const coloured = await terminal.text();
      expect(coloured.startsWith(`${ESC}[2m`)).toBe(true);
      expect(coloured).toContain(`${ESC}[0m ${ESC}[32minfo ${ESC}[0m api domain created `);
      const pipe = output(false);
      createLogger({ service: 'api', level: 'info', stream: pipe.stream, format: 'auto' }).info('domain created', { domain_id: 'd1' });
      expect(JSON.parse(await pipe.text())).toMatchObject({ level: 'info', service: 'api', message: 'domain created', domain_id: 'd1' });
    });

    it('colour false (NO_COLOR): readable lines without escape codes, secrets still redacted', async () => {
      const terminal = output(true);
      createLogger({ service: 'api', level: 'info', stream: terminal.stream, colour: false }).info('domain created', { domain_id: 'd1', secret: 's' });
      const text = await terminal.text();
      expect(text).toMatch(READABLE);
      expect(text).not.toContain(ESC);
    });

    it('pretty is readable even in a pipe, without colour; json is JSON even on a terminal', async () => {
      const pipe = output(false);
      createLogger({ service: 'api', level: 'info', stream: pipe.stream, format: 'pretty' }).info('domain created', { domain_id: 'd1', secret: 's' });
      const text = await pipe.text();
      expect(text).toMatch(READABLE);
      expect(text).not.toContain(ESC);
      const terminal = output(true);
      createLogger({ service: 'api', level: 'info', stream: terminal.stream, format: 'json' }).info('domain created', { domain_id: 'd1' });
      expect(JSON.parse(await terminal.text())).toMatchObject({ message: 'domain created', domain_id: 'd1' });
    });
  });
});

describe('ignoreClosedReader', () => {
  test('EPIPE (the reader went away) is swallowed; any other stream failure is still thrown', () => {
    const stream = new PassThrough();
    ignoreClosedReader(stream);
    ignoreClosedReader(stream);
    expect(stream.listenerCount('error')).toBe(1);
    expect(() => stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).not.toThrow();
    expect(() => stream.emit('error', Object.assign(new Error('disk full'), { code: 'ENOSPC' }))).toThrow('disk full');
  });
});
