import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
  }
}

const VALID_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Keeps a well-formed inbound X-Request-Id, otherwise makes one; echoes it on the answer. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const inbound = req.get('x-request-id');
    req.requestId = inbound && VALID_ID.test(inbound) ? inbound : randomUUID();
    res.setHeader('X-Request-Id', req.requestId);
    next();
  };
}
