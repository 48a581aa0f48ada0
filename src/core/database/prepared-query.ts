import { createHash } from 'node:crypto';
import { DatabaseError, type Pool, type QueryResultRow } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
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

/**
 * Names for statements whose text the code assembles (a filter combination, the columns a write
 * sets): the same text always gets the same name, so each pooled connection plans it once. At most
 * `limit` texts get a name; past that, new texts run unnamed (planned every time): a prepared
 * statement lives in its connection's memory on the server until the connection closes, and no
 * caller may fill that memory by sending ever new shapes.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly prefix: string,
    private readonly limit: number,
  ) {}

  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.limit) {
      name = `${this.prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/**
 * Runs a statement with `manager`: inside its transaction as TypeORM does, or, for a manager outside
 * any transaction, straight on the pool as a prepared statement named by `names` (see pooledQuery).
 * Errors are TypeORM's QueryFailedError either way, as callers that read constraint names expect.
 */
export async function managedQuery<T extends QueryResultRow>(
  manager: EntityManager,
  text: string,
  values: unknown[],
  names: StatementNames,
): Promise<T[]> {
  if (manager.queryRunner) return manager.query<T[]>(text, values);
  try {
    return await pooledQuery<T>(manager.connection, text, values, names.nameOf(text));
  } catch (error) {
    throw error instanceof DatabaseError ? new QueryFailedError(text, values, error) : error;
  }
}
