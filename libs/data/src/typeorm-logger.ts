import type { Logger } from '@cds/logging';
import type { Logger as TypeOrmLogger } from 'typeorm';

/** Slow queries and driver warnings go to our logger; query errors reach the caller as exceptions instead. */
export function typeOrmLogger(logger: Logger): TypeOrmLogger {
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
