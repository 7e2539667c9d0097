import express, { type RequestHandler } from 'express';
import { validationError } from '@cds/core';

export const MAX_BODY_BYTES = 64 * 1024;
const MAX_DEPTH = 32;

/** Depth of a parsed JSON value, computed without recursion so hostile nesting cannot overflow the stack. */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_DEPTH) return max;
    for (const child of Object.values(v as object)) stack.push([child, d + 1]);
  }
  return max;
}

/**
 * JSON bodies up to 64 KiB (413 above), any JSON value accepted so the schema
 * reports a wrong type; absurd nesting is refused before anything walks it.
 */
export function jsonBody(): RequestHandler[] {
  const parse = express.json({ limit: MAX_BODY_BYTES, strict: false, type: ['application/json', 'application/*+json'] });
  const depthGuard: RequestHandler = (req, _res, next) => {
    if (req.body !== undefined && jsonDepth(req.body) > MAX_DEPTH) {
      next(validationError([{ location: 'body', field: '', message: `The body is nested deeper than ${MAX_DEPTH} levels.`, type: 'json.depth' }]));
      return;
    }
    next();
  };
  return [parse, depthGuard];
}
