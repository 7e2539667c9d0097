import type { Logger as TypeOrmLogger } from 'typeorm';

export interface DataStoreLogger {
  info(msg: string, meta?: object): void;
  warn(msg: string, meta?: object): void;
}

/** Slow queries and driver warnings go to our logger; query errors reach the caller as exceptions instead. */
export function typeOrmLogger(logger: DataStoreLogger): TypeOrmLogger {
  return {
    logQuery: () => undefined,
    logQueryError: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    logQuerySlow: (time, query) => logger.warn('slow database query', { duration_ms: time, query }),
    log: (level, message) => {
      if (level === 'warn') logger.warn('database driver warning', { message: String(message) });
    },
  };
}

export const SLOW_QUERY_MS = 1000;
