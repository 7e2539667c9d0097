export { childLogger, createLogger, type CreateLoggerOptions, type Logger, silentLogger } from './create-logger';
export { maskSecrets, redact, redactField, REDACTED, SECRET_KEY } from './redact';
