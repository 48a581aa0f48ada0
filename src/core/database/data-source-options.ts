import { join } from 'node:path';
import { DataSourceOptions, LoggerOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { PrimaryClient, StandbyClient } from './statement-count';
import { TypeOrmLogger } from './typeorm-logger';

const projectRoot = join(__dirname, '..', '..', '..');
const LOGGING: LoggerOptions = ['error', 'warn', 'migration'];

/** The application_name prefix of read connections on a standby. */
export const READ_APPLICATION_NAME = 'sample-registry-read';
const STANDBY_CONNECT_TIMEOUT_MS = 2000;
/** How long a pooled connection may stay idle before it is closed (see buildDataSourceOptions). */
const POOL_IDLE_MS = 5 * 60_000;

/**
 * The one set of DataSource options, used by the app, the CLI and the TypeORM CLI alike.
 * Entities are discovered by file name; migrations live in the top-level migrations/ folder.
 * `synchronize` is never on: the schema only changes through reviewed migrations.
 */
export function buildDataSourceOptions(config: AppConfig): DataSourceOptions {
  const ext = __filename.endsWith('.ts') ? 'ts' : 'js';
  return {
    type: 'postgres',
    url: config.database.url,
    entities: [join(projectRoot, 'src', '**', `*.entity.${ext}`)],
    migrations: [join(projectRoot, 'migrations', `*.${ext}`)],
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    logging: LOGGING,
    logger: new TypeOrmLogger(LOGGING),
    extra: {
      max: config.database.poolSize,
      application_name: `sample-registry-${process.pid}`,
      statement_timeout: config.database.statementTimeoutMs || undefined,
      // No JIT: every statement here is short. Without statistics (a bulk load before ANALYZE) the
      // planner's costs pass jit_above_cost and PostgreSQL spent ~1.2 s compiling a 2,000-sample
      // page's expressions to run them in 5 ms.
      options: '-c jit=off',
      connectionTimeoutMillis: config.database.poolWaitMs,
      // A pooled connection holds its prepared statements and their plans: a new one plans the
      // page details statement (nine joins, ~5 ms) afresh five times before settling on its generic
      // plan. pg closes a connection idle for 10 s; here one idle for POOL_IDLE_MS.
      idleTimeoutMillis: POOL_IDLE_MS,
      // pg.Pool's client class: counts the statements sent (db_statements_total).
      Client: PrimaryClient,
    },
  };
}

/**
 * A read DataSource on one streaming standby (DATABASE_READ_URLS): the same entities and naming,
 * no migrations (a standby is read-only), and its own application_name so a standby's
 * pg_stat_activity shows which connections are the registry's reads. A standby that does not
 * answer fails a connection attempt within seconds, so the read falls back to the primary
 * instead of waiting the primary pool's full patience.
 */
export function buildReadDataSourceOptions(config: AppConfig, url: string): DataSourceOptions {
  const options = buildDataSourceOptions(config);
  return {
    ...options,
    url,
    migrations: [],
    extra: {
      ...(options.extra as Record<string, unknown>),
      application_name: `${READ_APPLICATION_NAME}-${process.pid}`,
      connectionTimeoutMillis: Math.min(config.database.poolWaitMs, STANDBY_CONNECT_TIMEOUT_MS),
      Client: StandbyClient,
    },
  } as DataSourceOptions;
}
