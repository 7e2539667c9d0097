import winston from 'winston';
import { redactField } from './redact';

/**
 * What code that logs needs of a logger: the one logger type of the project.
 * createLogger's winston logger is one; tests pass a plain object.
 */
export interface Logger {
  error(message: string, meta?: object): unknown;
  warn(message: string, meta?: object): unknown;
  info(message: string, meta?: object): unknown;
  debug(message: string, meta?: object): unknown;
}

/** A logger that drops everything: the default where logging is optional. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

export interface CreateLoggerOptions {
  /** Written as `service` on every line. */
  readonly service: string;
  /** winston npm level (error, warn, info, http, verbose, debug, silly). */
  readonly level: string;
  /** Defaults to process.stdout. */
  readonly stream?: NodeJS.WritableStream;
}

/** Replaces every top-level field by its redacted copy; winston's symbol keys are carried over untouched. */
const redactFormat = winston.format((info) => {
  const copy: winston.Logform.TransformableInfo = { ...info };
  for (const key of Object.keys(copy)) {
    if (key !== 'level') copy[key] = redactField(key, copy[key]);
  }
  return copy;
});

/** JSON lines (`timestamp`, `level`, `service`, `message`, fields) with secrets redacted. */
export function createLogger(opts: CreateLoggerOptions): winston.Logger {
  return winston.createLogger({
    level: opts.level,
    defaultMeta: { service: opts.service },
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      redactFormat(),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    transports: [new winston.transports.Stream({ stream: opts.stream ?? process.stdout })],
  });
}

/** A logger that adds fields (e.g. `requestId`) to every line it writes. */
export function childLogger(logger: Logger, fields: { readonly requestId?: string; readonly [key: string]: unknown }): Logger {
  if (logger instanceof winston.Logger) return logger.child(fields);
  const withFields = (meta?: object): object => ({ ...fields, ...meta });
  return {
    error: (message, meta) => logger.error(message, withFields(meta)),
    warn: (message, meta) => logger.warn(message, withFields(meta)),
    info: (message, meta) => logger.info(message, withFields(meta)),
    debug: (message, meta) => logger.debug(message, withFields(meta)),
  };
}
