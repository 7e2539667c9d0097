import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@cds/logging';

export type LogLine = Record<string, unknown> & { level: string; message: string };

/** A real JSON-lines logger whose lines the test can read. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: createLogger({ service: 'edge-proxy-test', level: 'info', stream }), lines };
}
