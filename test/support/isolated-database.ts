import { Client } from 'pg';
import { AppConfig } from '../../src/core/config/app-config';
import { prepareDatabase } from '../../src/core/database/prepare-database';
import { serverUrls, testConfig, testDatabaseName, testDatabaseUrl } from './test-environment';

export interface IsolatedDatabase {
  /** postgres://… of the database. */
  url: string;
  /** This run's test configuration on that database. */
  config: AppConfig;
  drop(): Promise<void>;
}

/**
 * A database of this run's own beside the shared one, with every migration applied. For processes
 * with their own Redis prefix: job state lives in PostgreSQL, and a worker's recovery sweep
 * re-enqueues, on its own queues, every open job of its database that its Redis does not know — a
 * worker on another prefix but the shared database would take (and fail) other suites' jobs.
 */
export async function createIsolatedDatabase(suffix: string): Promise<IsolatedDatabase> {
  const name = `${testDatabaseName()}_${suffix}`;
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  const config = testConfig({ DATABASE_URL: url.toString() });
  await prepareDatabase(config);
  return {
    url: url.toString(),
    config,
    drop: async () => {
      const client = new Client({ connectionString: serverUrls().database });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
