import winston from 'winston';
import { prettyLine, type LogEntry } from './pretty-line';
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
  /** `json` lines, readable `pretty` lines, or `auto` (the default): pretty when the stream is a terminal. */
  readonly format?: 'auto' | 'json' | 'pretty';
  /** Pretty lines on a terminal are coloured by level unless this is false (NO_COLOR). Defaults to true. */
  readonly colour?: boolean;
}

/** Replaces every top-level field by its redacted copy; winston's symbol keys are carried over untouched. */
const redactFormat = winston.format((info) => {
  const copy: winston.Logform.TransformableInfo = { ...info };
  for (const key of Object.keys(copy)) {
    if (key !== 'level') copy[key] = redactField(key, copy[key]);
  }
  return copy;
});

/** A terminal, as Node marks process.stdout and tty.WriteStream; pipes, files and test streams are not. */
function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** Whether a logger with this format writes readable lines to the stream (else JSON lines). */
export function writesPrettyLines(format: CreateLoggerOptions['format'], stream: NodeJS.WritableStream = process.stdout): boolean {
  return format === 'pretty' || ((format ?? 'auto') === 'auto' && isTerminal(stream));
}

const guarded = new WeakSet<NodeJS.WritableStream>();

/**
 * A reader of the logs that went away (`make run | head`, a closed pipe)
 * makes the stream fail with EPIPE: the service goes on, its logs go nowhere,
 * instead of dying of an unhandled 'error' event. Any other failure of the
 * stream is still thrown.
 */
export function ignoreClosedReader(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/**
 * JSON lines (`timestamp`, `level`, `service`, `message`, fields) with secrets
 * redacted; the same entries as readable lines where `format` asks for them.
 */
export function createLogger(opts: CreateLoggerOptions): winston.Logger {
  const stream = opts.stream ?? process.stdout;
  ignoreClosedReader(stream);
  const pretty = writesPrettyLines(opts.format, stream);
  // Colour only reaches a terminal: escape codes in a file or a pipe are noise.
  const colour = pretty && opts.colour !== false && isTerminal(stream);
  return winston.createLogger({
    level: opts.level,
    defaultMeta: { service: opts.service },
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      redactFormat(),
      winston.format.timestamp(),
      pretty ? winston.format.printf((info) => prettyLine(info as LogEntry, { colour })) : winston.format.json(),
    ),
    transports: [new winston.transports.Stream({ stream })],
  });
}

/** A logger that adds fields (e.g. `request_id`) to every line it writes. */
export function childLogger(logger: Logger, fields: { readonly request_id?: string; readonly [key: string]: unknown }): Logger {
  if (logger instanceof winston.Logger) return logger.child(fields);
  const withFields = (meta?: object): object => ({ ...fields, ...meta });
  return {
    error: (message, meta) => logger.error(message, withFields(meta)),
    warn: (message, meta) => logger.warn(message, withFields(meta)),
    info: (message, meta) => logger.info(message, withFields(meta)),
    debug: (message, meta) => logger.debug(message, withFields(meta)),
  };
}
