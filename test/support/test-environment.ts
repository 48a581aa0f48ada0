import { randomBytes } from 'node:crypto';
import { AppConfig, loadAppConfig } from '../../src/core/config/app-config';

/**
 * Each test run gets its own database and Redis key prefix, derived from one run id that global
 * setup chooses and hands to the test workers through the environment.
 */
export const RUN_ID_VARIABLE = 'SR_TEST_RUN_ID';

export function newRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export function runId(): string {
  const id = process.env[RUN_ID_VARIABLE];
  if (!id) throw new Error(`${RUN_ID_VARIABLE} is not set: run the e2e suites through jest.e2e.config.js.`);
  return id;
}

/** Where the local services are; CI and developers override with TEST_DATABASE_URL / TEST_REDIS_URL. */
export function serverUrls(): { database: string; redis: string } {
  return {
    database: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redis: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  };
}

export function testDatabaseName(id = runId()): string {
  return `sr_test_${id}`;
}

export function testDatabaseUrl(id = runId()): string {
  const url = new URL(serverUrls().database);
  url.pathname = `/${testDatabaseName(id)}`;
  return url.toString();
}

export function testKeyPrefix(id = runId()): string {
  return `sr-test-${id}`;
}

/** The AppConfig test apps run with; `overrides` replace whole environment variables. */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadAppConfig({
    NODE_ENV: 'test',
    DATABASE_URL: testDatabaseUrl(),
    REDIS_URL: serverUrls().redis,
    REDIS_KEY_PREFIX: testKeyPrefix(),
    JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_MIGRATE_ON_START: 'false',
    PASSWORD_HASH_ROUNDS: '4',
    // Every suite shares 127.0.0.1; the rate-limit suite lowers these on an app of its own.
    AUTH_RATE_LIMIT_PER_IP: '100000',
    AUTH_RATE_LIMIT_PER_ACCOUNT: '100000',
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '0',
    // Suites write then list anonymously and expect what they wrote; list-cache.e2e-spec turns it on.
    LIST_CACHE_SECONDS: '0',
    ...overrides,
  });
}
