import type { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Runs a statement outside any transaction straight on the pool, as a named prepared statement
 * when `name` is given: each pooled connection plans it once. For the hot per-request statements
 * (fetch by IGSN, the bearer-token check), whose planning costs more than their execution.
 */
export async function pooledQuery<T extends QueryResultRow>(
  dataSource: DataSource,
  text: string,
  values: unknown[],
  name?: string,
): Promise<T[]> {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  return (await pool.query<T>(name ? { name, text, values } : { text, values })).rows;
}
