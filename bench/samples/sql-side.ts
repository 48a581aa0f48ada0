import { INestApplicationContext } from '@nestjs/common';
import { Pool, QueryResult } from 'pg';
import { pairStateSql } from '../../src/modules/auth/token-pair.repository';
import { SAMPLE_DETAIL, byIgsnWithState } from '../../src/modules/samples/sample.repository';
import { SampleSearchRepository } from '../../src/modules/samples/sample-search.repository';
import { SampleSearchService } from '../../src/modules/samples/sample-search.service';
import { mintedSuffixSql } from './generate';

/*
 * The SQL-only side of every scenario, one small function each: the statements the API runs for
 * one request, as the bench runs them straight through pg beside the HTTP figures. This is the only
 * file of the samples bench that knows the application's SQL, so when the statements move (into
 * SampleRepository) or change (two-stage pages, estimated counts), these functions are what to
 * point at them. Where the app's statement is private or a scenario is new, the function holds the
 * obvious equivalent, written out.
 */

export interface Statement {
  text: string;
  values: unknown[];
  /** A named prepared statement (planned once per connection), as the API runs fetch by IGSN. */
  name?: string;
}

export function runStatement(pool: Pool, statement: Statement): Promise<QueryResult> {
  return pool.query({ text: statement.text, values: statement.values, name: statement.name });
}

/** Fetch by IGSN: the statement `SampleReader.byIgsn` prepares, by IGSN suffix. */
export function fetchStatement(igsnSuffix: string): Statement {
  return { name: 'bench-sample-by-igsn', text: `${SAMPLE_DETAIL} WHERE s.igsn = $1`, values: [igsnSuffix] };
}

/**
 * Fetch by IGSN with a bearer token: the fetch statement with the token's pair and account state
 * selected beside the sample (`SampleRepository.byIgsnWithState` with `pairStateSql`, ADR 0012), by
 * IGSN suffix and the token's `sid`.
 */
export function tokenFetchStatement(igsnSuffix: string, tokenPairId: string): Statement {
  return {
    name: 'bench-sample-by-igsn-with-token',
    ...byIgsnWithState(igsnSuffix, pairStateSql(tokenPairId)).toQuery(),
  };
}

/**
 * One page of a search or list. `rows` and `count` are single statements written out for EXPLAIN
 * and for the exact truth of `count`; `run` is what the API's data access does for the page —
 * SampleSearchRepository.searchWithCount (ids, then details as a prepared statement, with the estimate
 * or bounded count; text terms collected with their count) — called in the bench process, without
 * HTTP, Nest or JSON.
 */
export interface PageStatements {
  rows: Statement;
  /** The page's ids, newest first (one more than the page), as the API's repository reads them first. */
  ids: Statement;
  count: Statement;
  run: () => Promise<unknown>;
}

/**
 * A page of `GET /api/samples/` for an anonymous caller: the WHERE clause from
 * `SampleSearchService.searchCondition`, the page newest first, and the `count(*)` the service runs
 * beside it.
 */
export async function listStatements(
  context: INestApplicationContext,
  query: Record<string, string>,
  page: { page: number; pageSize: number },
): Promise<PageStatements> {
  const search = await context.get(SampleSearchService).searchCondition(query, undefined);
  const condition = search.where;
  const { text: where, values: params } = condition.toQuery();
  const repository = context.get(SampleSearchRepository);
  const text = Boolean(query.q || query.name || query.igsn);
  const request = { limit: page.pageSize, offset: (page.page - 1) * page.pageSize, walk: search.public };
  const service = context.get(SampleSearchService);
  return {
    run: () =>
      repository.searchWithCount(condition, request, {
        valueDependent: text,
        textSearch: text,
        catalogue: search.catalogue,
        estimate: service.knownEstimate(search),
      }),
    rows: {
      text:
        `${SAMPLE_DETAIL} WHERE ${where} ORDER BY s.created_at DESC, s.id DESC ` +
        `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      values: [...params, page.pageSize, (page.page - 1) * page.pageSize],
    },
    ids: {
      text:
        `SELECT s.id FROM sample s WHERE ${where} ORDER BY s.created_at DESC, s.id DESC ` +
        `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      values: [...params, page.pageSize + 1, (page.page - 1) * page.pageSize],
    },
    count: countOf(where, params),
  };
}

/** The details of a page's samples by id: the API's second statement of a page. */
export const DETAILS_BY_IDS = `${SAMPLE_DETAIL} WHERE s.id = ANY($1::bigint[])`;

function countOf(where: string, params: unknown[]): Statement {
  return { text: `SELECT count(*) AS count FROM sample s WHERE ${where}`, values: params };
}

/**
 * The exact number of samples an anonymous search matches: the bench's measure of truth for
 * `count`, whatever the app answers (keep this one exact when the app's count becomes an estimate).
 */
export async function exactCountStatement(
  context: INestApplicationContext,
  query: Record<string, string>,
): Promise<Statement> {
  const { text: where, values: params } = (
    await context.get(SampleSearchService).searchCondition(query, undefined)
  ).where.toQuery();
  return countOf(where, params);
}

/** One page the way the service answers it (its repository calls; the pool is the repository's own). */
export function runPage(_pool: Pool, statements: PageStatements): Promise<unknown> {
  return statements.run();
}

export interface RegisterValues {
  code: string;
  name: string;
  objectType: string;
  latitude: number;
  longitude: number;
  elevation: number;
  country: string;
  description: string;
  userId: number;
}

/** Register one sample as one statement: take the next value of the code's IGSN sequence and insert the sample with it. */
export function registerStatement(values: RegisterValues): Statement {
  return {
    text: `
      WITH minted AS (SELECT $1::text AS code, nextval(igsn_sequence_name($1)::regclass) AS counter)
      INSERT INTO sample (igsn, registry_code, name, object_type_id, latitude, longitude, elevation, elevation_unit,
                          country, general_material_type, sample_description, metadata_store_status, publish_date,
                          user_owner_id, created_by, created_at, updated_at)
      SELECT ${mintedSuffixSql('m.code', 'm.counter')}, m.code, $2,
             (SELECT id FROM object_type WHERE lower(label) = lower($3)), $4, $5, $6, 'meters', $7, 'Rock', $8,
             'published', now(), $9, $9, now(), now()
        FROM minted m`,
    values: [
      values.code,
      values.name,
      values.objectType,
      values.latitude,
      values.longitude,
      values.elevation,
      values.country,
      values.description,
      values.userId,
    ],
  };
}
