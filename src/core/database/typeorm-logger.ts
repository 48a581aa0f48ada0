import { Logger } from '@nestjs/common';
import type { LoggerOptions, Logger as TypeOrmLoggerInterface } from 'typeorm';

/** Longest SQL text kept in a log line: enough to recognise the statement. */
const SQL_LOG_LIMIT = 500;

function shorten(sql: string): string {
  const oneLine = sql.replace(/\s+/g, ' ').trim();
  return oneLine.length > SQL_LOG_LIMIT ? `${oneLine.slice(0, SQL_LOG_LIMIT)}…` : oneLine;
}

/**
 * TypeORM's messages through the application logger (pino: JSON, with the request's reqId), not
 * TypeORM's own multi-line plain-text console output. Query parameters are never logged: they
 * hold user data and password hashes.
 */
export class TypeOrmLogger implements TypeOrmLoggerInterface {
  private readonly logger = new Logger('TypeORM');

  /** `enabled`: the DataSource's `logging` option (TypeORM leaves the filtering to custom loggers). */
  constructor(private readonly enabled: LoggerOptions) {}

  private on(kind: 'query' | 'error' | 'schema' | 'migration' | 'log' | 'info' | 'warn'): boolean {
    return (
      this.enabled === 'all' || this.enabled === true || (Array.isArray(this.enabled) && this.enabled.includes(kind))
    );
  }

  logQuery(query: string): void {
    if (this.on('query')) this.logger.debug(`Query: ${shorten(query)}`);
  }

  logQueryError(error: string | Error, query: string): void {
    if (!this.on('error')) return;
    this.logger.error(`Query failed: ${typeof error === 'string' ? error : error.message} — ${shorten(query)}`);
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn(`Slow query (${time} ms): ${shorten(query)}`);
  }

  logSchemaBuild(message: string): void {
    if (this.on('schema')) this.logger.debug(message);
  }

  logMigration(message: string): void {
    if (this.on('migration')) this.logger.log(message);
  }

  /** TypeORM's informational messages (entity globs found, etc.) are debug detail. */
  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (!this.on(level)) return;
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.debug(String(message));
  }
}
