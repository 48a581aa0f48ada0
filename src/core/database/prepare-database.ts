import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { analyzeStaleTables } from './table-statistics';

/** Arbitrary constant: the advisory lock that serialises migration runs across processes. */
const MIGRATION_LOCK_ID = 727_274_001;

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the configured database when it does not exist yet (connecting to the `postgres` database). */
export async function ensureDatabaseExists(databaseUrl: string): Promise<boolean> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database.');
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    } catch (error) {
      // Another process created it between our check and our CREATE: that is fine.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
    return true;
  } finally {
    await client.end();
  }
}

export interface PrepareDatabaseResult {
  created: boolean;
  applied: string[];
}

/**
 * Creates the database if needed and applies pending migrations. Several API replicas and workers
 * may start at once: a Postgres advisory lock makes them take turns, and the later ones find
 * nothing left to apply.
 */
export async function prepareDatabase(config: AppConfig): Promise<PrepareDatabaseResult> {
  const created = await ensureDatabaseExists(config.database.url);
  const dataSource = new DataSource({ ...buildDataSourceOptions(config), logging: ['error'] });
  await dataSource.initialize();
  try {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
      try {
        const migrations = await dataSource.runMigrations({ transaction: 'each' });
        // Seed data arrives through migrations: give the planner its statistics at once.
        if (migrations.length) await analyzeStaleTables(runner);
        return { created, applied: migrations.map((migration) => migration.name) };
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
      }
    } finally {
      await runner.release();
    }
  } finally {
    await dataSource.destroy();
  }
}
