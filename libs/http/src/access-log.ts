import type { RequestHandler } from 'express';
import type { Logger } from '@cds/logging';

/** The `http` level between `info` and `verbose` that createLogger's winston logger has; plain loggers have none. */
interface HttpLevel {
  http(message: string, meta: object): unknown;
  isLevelEnabled(level: string): boolean;
}

function hasHttpLevel(logger: Logger): logger is Logger & HttpLevel {
  return 'http' in logger && typeof logger.http === 'function' && 'isLevelEnabled' in logger && typeof logger.isLevelEnabled === 'function';
}

/** One log line per answered request at winston's `http` level (off at the default `info`, and with a logger without that level). */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!hasHttpLevel(logger) || !logger.isLevelEnabled('http')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.http('request', {
        request_id: req.requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        application: req.principal?.application.slug,
      });
    });
    next();
  };
}
