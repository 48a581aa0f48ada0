import { join } from 'node:path';
import { DataSourceOptions, LoggerOptions } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { TypeOrmLogger } from './typeorm-logger';

const projectRoot = join(__dirname, '..', '..', '..');
const LOGGING: LoggerOptions = ['error', 'warn', 'migration'];

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
      connectionTimeoutMillis: config.database.poolWaitMs,
    },
  };
}
