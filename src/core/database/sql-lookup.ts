import { EntityManager } from 'typeorm';
import { StatementNames, managedQuery } from './prepared-query';
import { Sql, identifier, join, sql } from './sql';

/**
 * One question about stored rows that a statement can ask beside others: a scalar SQL expression
 * (its answer, usually jsonb, NULL for none) and how that answer is read. `read` gives undefined when
 * the answer does not settle the question the quick way (nothing found, a difference to report, a
 * blank to fill in): the caller then takes its full path, which finds, creates or refuses as usual.
 */
export interface SqlLookup<T> {
  expression: Sql;
  read: (answer: unknown) => T | undefined;
}

type Answers<L extends Record<string, SqlLookup<unknown>>> = {
  [K in keyof L]: L[K] extends SqlLookup<infer T> ? T | undefined : never;
};

/**
 * The statements lookUpTogether assembles (one per set of lookups asked), prepared outside a
 * transaction; past this many shapes, new ones run unnamed.
 */
const LOOKUP_STATEMENTS = new StatementNames('lookup', 64);

/**
 * Asks every lookup in one statement (`SELECT (a) AS a, (b) AS b, …`): a write that names several
 * references pays one round trip for all of them, and sees each as it is at that moment — nothing
 * is kept between requests, so a change made by any process is seen by the next request. Keys are
 * names written in the code.
 */
export async function lookUpTogether<L extends Record<string, SqlLookup<unknown>>>(
  manager: EntityManager,
  lookups: L,
): Promise<Answers<L>> {
  const keys = Object.keys(lookups);
  if (!keys.length) return {} as Answers<L>;
  const columns = keys.map((key) => sql`(${lookups[key].expression}) AS ${identifier(key)}`);
  const query = sql`SELECT ${join(columns, ', ')}`.toQuery();
  const [row] = await managedQuery<Record<string, unknown>>(manager, query.text, query.values, LOOKUP_STATEMENTS);
  return Object.fromEntries(keys.map((key) => [key, lookups[key].read(row[key.toLowerCase()])])) as Answers<L>;
}
