import { AppConfig, loadAppConfig } from '../config/app-config';

/** A fixed configuration for building the document offline: same output on every machine. */
export function documentGenerationConfig(): AppConfig {
  return loadAppConfig({
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://openapi@127.0.0.1:1/openapi',
    REDIS_URL: 'redis://127.0.0.1:1/0',
    JWT_SECRET: 'document-generation-only-secret-000000',
    DATABASE_MIGRATE_ON_START: 'false',
  });
}
