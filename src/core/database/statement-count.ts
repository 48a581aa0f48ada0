import { Client } from 'pg';

/**
 * The SQL statements this process has sent through its TypeORM pools since it started, by pool:
 * `primary` (DATABASE_URL) and `standby` (the read DataSources on DATABASE_READ_URLS). Metrics
 * serves them as db_statements_total{pool}. Standby health checks use clients of their own and are
 * not counted.
 */
export const sentStatements = { primary: 0, standby: 0 };

export type StatementPool = keyof typeof sentStatements;

/**
 * A pg Client that counts every statement it sends, whether TypeORM's query runner sends it or
 * pool.query does (both go through Client.query): one increment per statement, no work on its text.
 * The pools are given it as their `Client` (data-source-options.ts).
 */
function countingClient(pool: StatementPool): typeof Client {
  class CountingClient extends Client {}
  (CountingClient.prototype as { query: unknown }).query = function (this: Client, ...args: unknown[]): unknown {
    sentStatements[pool]++;
    // Looked up on each call, not kept: a test may wrap Client.prototype.query to note statements.
    return (Client.prototype.query as (...values: unknown[]) => unknown).apply(this, args);
  };
  return CountingClient;
}

export const PrimaryClient = countingClient('primary');
export const StandbyClient = countingClient('standby');
