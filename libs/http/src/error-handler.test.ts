import type { Request, Response } from 'express';
import { AppError } from '@cds/core';
import type { Logger } from '@cds/logging';
import { errorHandler } from './error-handler';

function answer(err: unknown, headersSent = false): { status: number; headers: Record<string, string>; body: unknown; logged: string[]; destroyed: boolean } {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown, logged: [] as string[], destroyed: false };
  const res = {
    headersSent,
    destroy: () => void (out.destroyed = true),
    setHeader: (name: string, value: string) => void (out.headers[name] = value),
    status(code: number) {
      out.status = code;
      return this;
    },
    json: (body: unknown) => void (out.body = body),
  } as unknown as Response;
  // Each line as `<level> <message> <request_id>`: every line names its request.
  const line = (level: string) => (message: string, meta?: object) => out.logged.push(`${level} ${message} ${meta && 'request_id' in meta ? String(meta.request_id) : '-'}`);
  const logger: Logger = { warn: line('warn'), error: line('error'), info: line('info'), debug: line('debug') };
  errorHandler(logger)(err, { originalUrl: '/v1/domains', requestId: 'r1' } as unknown as Request, res, () => undefined);
  return out;
}

describe('errorHandler', () => {
  it('answers 503 service_unavailable with Retry-After when the database cannot be reached', () => {
    const out = answer(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(out.status).toBe(503);
    expect(out.headers).toEqual({ 'Retry-After': '5' });
    expect(out.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String), details: {} } });
    expect(out.logged).toEqual(['warn database unavailable r1']);
  });

  it('keeps 500 internal_error for anything else unexpected', () => {
    const out = answer(new TypeError('boom'));
    expect(out.status).toBe(500);
    expect(out.body).toMatchObject({ error: { code: 'internal_error' } });
    expect(out.logged).toEqual(['error unhandled error r1']);
  });

  it('cuts an answer whose headers were sent, logging the error with its request id', () => {
    const out = answer(new TypeError('boom'), true);
    expect(out.destroyed).toBe(true);
    expect(out.status).toBe(0);
    expect(out.logged).toEqual(['error error after headers were sent r1']);
  });

  it('writes AppErrors as they are', () => {
    const out = answer(new AppError('domain_not_found', 'No such domain.'));
    expect(out.status).toBe(404);
    expect(out.logged).toEqual([]);
  });
});
