import type { RequestHandler } from 'express';
import type { Logger } from 'winston';

/** One log line per answered request at winston's `http` level (off at the default `info`). */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('http')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.http('request', {
        requestId: req.requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        application: req.principal?.application.slug,
      });
    });
    next();
  };
}
