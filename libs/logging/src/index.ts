export { childLogger, createLogger, type CreateLoggerOptions, ignoreClosedReader, type Logger, silentLogger, writesPrettyLines } from './create-logger';
export { maskSecrets, redact, redactField, REDACTED, SECRET_KEY } from './redact';
export { prettyLine, type LogEntry, type PrettyOptions } from './pretty-line';
