import type { Request, Response } from 'express';
import type { Logger } from 'winston';
import { AppError } from '@cds/core';
import { errorHandler } from './error-handler';

function answer(err: unknown): { status: number; headers: Record<string, string>; body: unknown; logged: string[] } {
  const out = { status: 0, headers: {} as Record<string, string>, body: undefined as unknown, logged: [] as string[] };
  const res = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (out.headers[name] = value),
    status(code: number) {
      out.status = code;
      return this;
    },
    json: (body: unknown) => void (out.body = body),
  } as unknown as Response;
  const logger = { warn: (m: string) => out.logged.push(`warn ${m}`), error: (m: string) => out.logged.push(`error ${m}`) } as unknown as Logger;
  errorHandler(logger)(err, { originalUrl: '/v1/domains', requestId: 'r1' } as unknown as Request, res, () => undefined);
  return out;
}

describe('errorHandler', () => {
  it('answers 503 service_unavailable with Retry-After when the database cannot be reached', () => {
    const out = answer(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(out.status).toBe(503);
    expect(out.headers).toEqual({ 'Retry-After': '5' });
    expect(out.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String), details: {} } });
    expect(out.logged).toEqual(['warn database unavailable']);
  });

  it('keeps 500 internal_error for anything else unexpected', () => {
    const out = answer(new TypeError('boom'));
    expect(out.status).toBe(500);
    expect(out.body).toMatchObject({ error: { code: 'internal_error' } });
    expect(out.logged).toEqual(['error unhandled error']);
  });

  it('writes AppErrors as they are', () => {
    const out = answer(new AppError('domain_not_found', 'No such domain.'));
    expect(out.status).toBe(404);
    expect(out.logged).toEqual([]);
  });
});
