import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { StatementNames, pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { Sql, and, around, bind, condition as whereOrTrue, empty, or, raw, sql } from '../../core/database/sql';
import { ORCID } from '../agents/agent-identifier';
import { escapeLike } from '../vocabularies/common/label-search';
import { DEFAULT_SAMPLE_ORDER, SampleOrder, orderBySql } from './sample-ordering';
import { NameTrigramFrequencies } from './name-trigrams';
import { BoundingBox } from './sample-search';
import { SampleRow } from './sample.mapper';
import { StoreStatus } from './sample.entity';
import { BY_IDS, SampleRepository } from './sample.repository';
import { ESTIMATE_ONLY_ABOVE, EXACT_COUNT_LIMIT, RememberedEstimate } from './sample-counts';

/**
 * The newest-first walk (newestFirstWalkStatement) looks at no more than this many index entries for each
 * row of the page it wants, and serves pages ending at most WALK_ROWS_MAX rows in; beyond either,
 * the page is planned like any other (matches too sparse among recent samples, or a deep page).
 */
const WALK_VISITS_PER_ROW = 100;
const WALK_ROWS_MAX = 2_001;
/** …and never more than this many entries past the rows it wants (a page_size=2000 page of a sparse filter). */
const WALK_EXTRA_VISITS_MAX = 10_000;
/** The index entries one step of the walk reads (a literal: the planner sizes the step's scan by it). */
const WALK_BATCH_SQL = raw('64');
/**
 * A text search (`q`, `name`, `igsn`) the planner expects to match more than this many samples is
 * paged along the newest-first index first and its count estimated: collecting every match on the
 * trigram indexes to count them costs more than the page (a common `q` term, issue 23 §6).
 */
const COLLECT_ESTIMATE_MAX = 1_000;
/**
 * Below this size a table without statistics is counted all the same (a few thousand rows);
 * above, a count without statistics answers the estimate instead of scanning (issue 23 §7).
 */
const SMALL_TABLE_BYTES = 8 * 1024 * 1024;
/** The sample table has planner statistics, or is too small for counting it to matter. */
const SAMPLE_STATISTICS_KNOWN = raw(`(pg_relation_size('sample') < ${SMALL_TABLE_BYTES}
  OR EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'sample'))`);
/** A literal, not a parameter: the planner sizes the bounded count by it. */
const EXACT_COUNT_BOUND = raw(String(EXACT_COUNT_LIMIT + 1));
/** The table pages whose names are read for the names' trigram frequencies (nameTrigramSample). */
const NAME_SAMPLE_PAGES = 1_000;

/**
 * The period a sample was taken in, as indexed by idx_sample_sampling_period: start to end, either
 * alone when the other is missing; the index (and the search) leaves out samples with neither.
 */
const SAMPLING_PERIOD = raw(`tstzrange(least(s.sampling_start_date, s.sampling_end_date),
                                   greatest(s.sampling_start_date, s.sampling_end_date), '[]')`);
const SAMPLING_PERIOD_PRESENT = raw('COALESCE(s.sampling_start_date, s.sampling_end_date) IS NOT NULL');

/** Every name of a sample besides its own, as one lower-cased text the trigram index covers. */
export const OTHER_NAMES_TEXT = 'sample_other_names_text(s.other_names)';

export interface SamplePageRequest {
  limit: number;
  offset: number;
  /**
   * Run the id statement as a named prepared statement: only for conditions whose best plan does
   * not depend on the parameter values (no text patterns), so one generic plan serves them all.
   */
  prepared?: boolean;
  /** The order of the page (`ordering`); newest first when absent. */
  order?: SampleOrder;
  /**
   * Find the page by walking the newest-first index (newestFirstWalkStatement) when it is in that
   * order: for conditions expected to match many recent samples (the public list and its broad
   * filters), whose page must not depend on planner statistics.
   */
  walk?: boolean;
}

export interface SampleCount {
  count: number;
  exact: boolean;
}

/** A time range `[from, to)`; a missing bound is open. */
export interface TimeRange {
  from?: Date;
  to?: Date;
}

/**
 * Whose samples a search looks at: what the public may see (the access policy's condition), or
 * the caller's own (`personal`), their teams' that they do not own (`shared`), or both — never
 * deactivated ones.
 */
export type SampleSearchScope =
  { public: Sql } | { scope: 'personal' | 'shared' | 'personal_and_shared'; userId: number; teamIds: number[] };

/** The search filters that SampleSearchRepository.filterCondition turns into SQL, parsed and checked. */
export interface SampleFilters {
  isDraft?: boolean;
  /**
   * `q`: the IGSN (`igsn`, the text without the DOI prefix), the name or another name contains the
   * text. `narrowing`: the trigrams of the text to ask the name's trigram index for (name-trigrams.ts).
   */
  q?: { text: string; igsn: string; narrowing?: string[] };
  /** The name contains the text (case ignored). */
  name?: string;
  /** The trigrams of `name` to ask the name's trigram index for (name-trigrams.ts). */
  nameNarrowing?: string[];
  /** The IGSN contains the text (without the DOI prefix; case ignored). */
  igsn?: string;
  objectTypeIds?: number[];
  /** ISO 3166-1 alpha-2 codes, as stored. */
  countryCodes?: string[];
  registryCodes?: string[];
  parentId?: string;
  /** Samples with any of these collectors (SampleSearchRepository.collectorIdsMatching resolves a `collector` filter). */
  collectorIds?: number[];
  bbox?: BoundingBox;
  sampling?: TimeRange;
  created?: TimeRange;
  /** The client's own id, exactly. */
  externalSampleId?: string;
  /** Only samples in this store state; without it, searches of one's own samples leave reserved ones out. */
  storeStatus?: StoreStatus;
  /** The samples of one batch (label sheets; not a search parameter). */
  batchId?: number;
}

/**
 * The statement of SampleSearchRepository.searchCollected: every match (up to one past
 * EXACT_COUNT_LIMIT, in no particular order, so the planner starts from the condition's indexes),
 * counted, and the page's ids sorted out of them.
 */
function collectedStatement(condition: Sql, page: SamplePageRequest): Sql {
  const order = page.order ?? DEFAULT_SAMPLE_ORDER;
  const sortKey = raw(order.column === 'id' ? '' : `, s.${order.column}`);
  return sql`WITH matches AS MATERIALIZED (
            SELECT s.id${sortKey} FROM sample s WHERE ${condition} LIMIT ${EXACT_COUNT_BOUND})
          SELECT (SELECT count(*)::int FROM matches) AS total,
                 ARRAY(SELECT id FROM matches ORDER BY ${raw(orderBySql(order, ''))}
                        LIMIT ${page.limit + 1} OFFSET ${page.offset}) AS ids`;
}

/** The statement of one page of ids in the page's order (SampleSearchRepository.searchPage). */
function pageIdsStatement(condition: Sql, page: SamplePageRequest): Sql {
  return sql`SELECT s.id FROM sample s WHERE ${condition}
           ORDER BY ${raw(orderBySql(page.order ?? DEFAULT_SAMPLE_ORDER, 's'))} LIMIT ${page.limit + 1} OFFSET ${page.offset}`;
}

/**
 * A walk of the newest-first index (idx_sample_newest), WALK_BATCH entries at a time, testing
 * `condition` on each sample, until `page.offset + page.limit + 1` matches are found or `visits`
 * entries were seen (past it by less than a batch; SampleSearchRepository.searchPage). Each step
 * asks for the WALK_BATCH entries before the last one seen, with no other condition and a constant
 * limit: the only sensible plan for that, with or without statistics, is one descent of the index
 * and a short range scan, so the page can never become a sort of every match (issue 23 §7). A step
 * of one entry paid an index descent and a rescan for every sample looked at (25 µs a sample at
 * 1,000,000 samples, against 5 µs in a batch). The matches come out in the order the walk found
 * them (the recursive union's steps in turn, each step's in index order), as the one-entry walk's did.
 */
function newestFirstWalkStatement(condition: Sql, page: SamplePageRequest, visits: number): Sql {
  return sql`WITH RECURSIVE walk (created_at, id, visited, found, hits) AS (
            SELECT 'infinity'::timestamptz, 0::bigint, 0, 0, '{}'::bigint[]
            UNION ALL
            SELECT batch.created_at, batch.id, walk.visited + batch.seen,
                   walk.found + cardinality(batch.hits), batch.hits
              FROM walk CROSS JOIN LATERAL (
                SELECT (array_agg(b.created_at ORDER BY b.created_at, b.id))[1] AS created_at,
                       (array_agg(b.id ORDER BY b.created_at, b.id))[1] AS id,
                       count(*)::int AS seen,
                       coalesce(array_agg(b.id ORDER BY b.created_at DESC, b.id DESC) FILTER (WHERE b.hit), '{}') AS hits
                  FROM (SELECT s.created_at, s.id, (${whereOrTrue(condition)}) AS hit FROM sample s
                         WHERE (s.created_at, s.id) < (walk.created_at, walk.id)
                         ORDER BY s.created_at DESC, s.id DESC LIMIT ${WALK_BATCH_SQL}) b
                HAVING count(*) > 0) batch
             WHERE walk.visited < ${visits}::int AND walk.found < ${page.offset + page.limit + 1}::int)
          SELECT h.id FROM walk CROSS JOIN LATERAL unnest(walk.hits) AS h (id)
           LIMIT ${page.limit + 1} OFFSET ${page.offset}`;
}

/** Newest first, then id: the order of idx_sample_newest. */
function isNewestFirst(order: SampleOrder | undefined): boolean {
  const { column, descending } = order ?? DEFAULT_SAMPLE_ORDER;
  return column === DEFAULT_SAMPLE_ORDER.column && descending === DEFAULT_SAMPLE_ORDER.descending;
}

/** A LIKE pattern matching values that contain `value` literally. */
function likePattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

/**
 * The name contains `lowered` (lower-cased): as one LIKE on the name's trigram index, or, given
 * `narrowing` (some trigrams of it, name-trigrams.ts), the index asked for those alone and each row
 * it returns checked for the whole text.
 */
function nameContains(
  lowered: string,
  narrowing: readonly string[] | undefined,
  pattern: Sql = bind(likePattern(lowered)),
): Sql {
  if (!narrowing?.length) return sql`lower(s.name) LIKE ${pattern}`;
  const trigrams = narrowing.map((trigram) => sql`lower(s.name) LIKE ${likePattern(trigram)}`);
  // `<> 0`, not `> 0` (the same: strpos is never negative): the planner takes a function's `<>` to
  // keep nearly every row and `>` to keep a third, so the estimate stays the trigrams'.
  return sql`(${and(...trigrams)} AND strpos(lower(s.name), ${lowered}) <> 0)`;
}

/**
 * Statement shapes come from the code's filter combinations: a bound that real traffic never
 * reaches (past it, new shapes run unnamed).
 */
const PAGE_STATEMENTS = new StatementNames('sp', 1_000);
const WINDOW_STATEMENTS = new StatementNames('sw', 1_000);

// Over 400 lines: the search's statements (WHERE clause, page, newest-first walk, collected and
// bounded counts) share one set of plan-shaping constants and must be read together when a plan
// goes wrong (docs/decisions/0002, 0011); the filter clauses are a quarter of it.
/**
 * The statements of the sample search (GET /api/samples/; its condition also selects what exports
 * and label sheets read, see SampleSelectionRepository): the WHERE clause built from a scope and
 * filters, pages and counts. Pages run in two steps: the ids here, then the
 * rows by id (SampleRepository.byIds, a named prepared statement; see
 * docs/decisions/0002-two-step-reads.md).
 */
@Injectable()
export class SampleSearchRepository {
  /** The whole public catalogue's estimated count, reused a while when large (count()). */
  private readonly catalogueEstimate = new RememberedEstimate();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly routing: ReadRouting,
    private readonly sampleRepository: SampleRepository,
  ) {}

  /** A read outside any transaction (on a standby when ReadRouting says so), named when `name` is given. */
  private pooled<T extends QueryResultRow>(statement: Sql, name?: (text: string) => string | undefined): Promise<T[]> {
    const { text, values } = statement.toQuery();
    return this.routing.read((source) => pooledQuery<T>(source, text, values, name?.(text)));
  }

  /**
   * The WHERE clause of a search (GET /api/samples/ and exports), on alias `s`: the scope, then the
   * filters. Built here alone, so its text — and the plans and prepared statements keyed on it —
   * is the same wherever a search runs.
   */
  searchCondition(scope: SampleSearchScope, filters: SampleFilters): Sql {
    if ('public' in scope) return and(scope.public, this.filterCondition(filters));
    const me = bind(scope.userId);
    const personal = sql`s.user_owner_id = ${me}`;
    const shared = sql`(s.team_owner_id = ANY(${scope.teamIds}::int[]) AND s.user_owner_id IS DISTINCT FROM ${me})`;
    return and(
      sql`NOT s.is_deactivated`,
      // Reserved samples (IGSNs minted before fieldwork, thousands at a time) would bury the described
      // ones: they are listed only when asked for (filterCondition, storeStatus).
      filters.storeStatus === undefined ? sql`s.metadata_store_status <> 'reserved'` : empty,
      scope.scope === 'personal' ? personal : scope.scope === 'shared' ? shared : or(personal, shared),
      this.filterCondition(filters),
    );
  }

  /**
   * The filters as one condition on alias `s` (empty when there is none). Text filters match
   * substrings (on the trigram indexes); each selective filter has an index to start from
   * (migration SampleSearchFilters).
   */
  filterCondition(filters: SampleFilters): Sql {
    const { q, bbox: box, sampling, created } = filters;
    const when = (given: boolean, condition: () => Sql) => (given ? condition() : empty);
    return and(
      when(filters.isDraft !== undefined, () =>
        filters.isDraft ? sql`s.metadata_store_status = 'draft'` : sql`s.metadata_store_status <> 'draft'`,
      ),
      when(q !== undefined, () => {
        const { text, igsn, narrowing } = q as NonNullable<typeof q>;
        const lowered = text.toLowerCase();
        const pattern = bind(likePattern(lowered));
        // No IGSN holds a space: a multi-word term would only read the IGSN trigram index's
        // long posting lists (` 20`, `201`, …) for nothing (~12 ms at 100k samples).
        const byIgsn = /\s/.test(igsn) ? empty : sql`s.igsn LIKE ${likePattern(igsn.toUpperCase())}`;
        return or(byIgsn, nameContains(lowered, narrowing, pattern), sql`${raw(OTHER_NAMES_TEXT)} LIKE ${pattern}`);
      }),
      when(filters.name !== undefined, () => nameContains(String(filters.name).toLowerCase(), filters.nameNarrowing)),
      when(filters.igsn !== undefined, () => sql`s.igsn LIKE ${likePattern(String(filters.igsn).toUpperCase())}`),
      when(filters.objectTypeIds !== undefined, () => sql`s.object_type_id = ANY(${filters.objectTypeIds}::int[])`),
      when(filters.countryCodes !== undefined, () => sql`s.country = ANY(${filters.countryCodes}::text[])`),
      when(filters.registryCodes !== undefined, () => sql`s.registry_code = ANY(${filters.registryCodes}::text[])`),
      when(filters.externalSampleId !== undefined, () => sql`s.external_sample_id = ${filters.externalSampleId}`),
      when(filters.parentId !== undefined, () => sql`s.parent_sample_id = ${filters.parentId}::bigint`),
      when(filters.collectorIds !== undefined, () =>
        filters.collectorIds?.length
          ? sql`s.id IN (SELECT sc.sample_id FROM sample_collector sc WHERE sc.collector_id = ANY(${filters.collectorIds}::int[]))`
          : sql`false`,
      ),
      when(box !== undefined, () => {
        const { minLon, minLat, maxLon, maxLat } = box as BoundingBox;
        // minLon > maxLon: the box crosses the antimeridian (180°) and holds both sides of it.
        const lon =
          minLon <= maxLon
            ? sql`s.longitude BETWEEN ${minLon}::float8 AND ${maxLon}::float8`
            : sql`(s.longitude >= ${minLon}::float8 OR s.longitude <= ${maxLon}::float8)`;
        return sql`s.latitude BETWEEN ${minLat}::float8 AND ${maxLat}::float8 AND ${lon}`;
      }),
      // A sample taken over days matches when that period overlaps the range (GiST index).
      when(sampling !== undefined, () => {
        const { from, to } = sampling as TimeRange;
        return sql`${SAMPLING_PERIOD_PRESENT} AND ${SAMPLING_PERIOD}
                      && tstzrange(${from ?? null}::timestamptz, ${to ?? null}::timestamptz, '[)')`;
      }),
      when(created?.from !== undefined, () => sql`s.created_at >= ${created?.from}::timestamptz`),
      when(created?.to !== undefined, () => sql`s.created_at < ${created?.to}::timestamptz`),
      when(filters.batchId !== undefined, () => sql`s.batch_id = ${filters.batchId}::int`),
      when(filters.storeStatus !== undefined, () => sql`s.metadata_store_status = ${filters.storeStatus}`),
    );
  }

  /** `condition` narrowed by filters. */
  narrowed(condition: Sql, filters: SampleFilters): Sql {
    return and(condition, this.filterCondition(filters));
  }

  /**
   * The collectors a `collector` filter names: a person by ORCID iD (on the identifier index), or a
   * substring (case and accents ignored) of a person's label or alternative label or an
   * institution's label. Collectors are few beside samples, so they are found first and the planner
   * then sees their ids (and how many samples each has) when it plans the samples.
   */
  async collectorIdsMatching(filter: { orcid: string } | { name: string }): Promise<number[]> {
    let match: Sql;
    if ('orcid' in filter) {
      const orcid = sql`${bind(filter.orcid)}::text`;
      match = sql`i.individual_uri IS NOT NULL AND ${raw(ORCID.key('i.individual_uri'))} = ${around(ORCID.key, orcid)}`;
    } else {
      const pattern = sql`'%' || lower(immutable_unaccent(${bind(escapeLike(filter.name))}::text)) || '%'`;
      match = sql`(lower(immutable_unaccent(i.label)) LIKE ${pattern} OR lower(immutable_unaccent(i.alt_label)) LIKE ${pattern}
                OR lower(immutable_unaccent(inst.label)) LIKE ${pattern})`;
    }
    const rows = await this.pooled<{ id: number }>(
      sql`SELECT c.id FROM collector c
         LEFT JOIN individual i ON i.id = c.individual_id
         LEFT JOIN institution inst ON inst.id = c.institution_id
        WHERE ${match}`,
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * One page of a search, newest first then id: `limit` rows after `offset`, and whether more
   * follow (one extra id is read, so `next` never depends on the count being exact).
   */
  async searchPage(condition: Sql, page: SamplePageRequest): Promise<{ rows: SampleRow[]; more: boolean }> {
    const ids = (await this.walkedIds(condition, page)) ?? (await this.pageIds(condition, page));
    return this.pageOf(ids, page);
  }

  /** The rows of a page's ids (one past the page, to know whether more follow). */
  private async pageOf(ids: { id: string }[], page: SamplePageRequest): Promise<{ rows: SampleRow[]; more: boolean }> {
    const more = ids.length > page.limit;
    return { rows: await this.sampleRepository.byIds(ids.slice(0, page.limit).map((row) => row.id)), more };
  }

  /** The page's ids (one past the page), as the planner plans them. */
  private pageIds(condition: Sql, page: SamplePageRequest): Promise<{ id: string }[]> {
    return this.pooled<{ id: string }>(
      pageIdsStatement(condition, page),
      page.prepared ? (text) => PAGE_STATEMENTS.nameOf(text) : undefined,
    );
  }

  /**
   * The page's ids (one past the page) by walking the newest-first index, when the page asks for
   * it and the walk found them all; undefined otherwise (the last page, or matches too sparse among
   * recent samples: the planned statement answers those).
   */
  private async walkedIds(condition: Sql, page: SamplePageRequest): Promise<{ id: string }[] | undefined> {
    const wanted = page.offset + page.limit + 1;
    if (!page.walk || !isNewestFirst(page.order) || wanted > WALK_ROWS_MAX) return undefined;
    const ids = await this.pooled<{ id: string }>(
      newestFirstWalkStatement(condition, page, Math.min(wanted * WALK_VISITS_PER_ROW, wanted + WALK_EXTRA_VISITS_MAX)),
      page.prepared ? (text) => WINDOW_STATEMENTS.nameOf(text) : undefined,
    );
    return ids.length === page.limit + 1 ? ids : undefined;
  }

  /**
   * A page of a search with its count (in `page.order`, newest first by default). `valueDependent`: the condition's best plan changes from one
   * value to the next (text patterns, a registry code, a box, a date range, …) — a condition expected
   * to match few samples is collected in one pass with its exact count (searchCollected), anything
   * broader pages along the newest-first index. Other conditions run as prepared statements, page
   * and count side by side. `textSearch`: the condition has a substring filter (`q`, `name`,
   * `igsn`). `catalogue`: the condition is the whole public catalogue, no filter (its estimated
   * count is reused a while, see RememberedEstimate). `estimate`: how many samples match, when the
   * caller knows it without the planner (a public search by one text, SampleNameStatistics).
   */
  async searchWithCount(
    condition: Sql,
    page: Omit<SamplePageRequest, 'prepared'>,
    kind: { valueDependent: boolean; textSearch?: boolean; catalogue?: boolean; estimate?: number },
  ): Promise<{ rows: SampleRow[]; more: boolean; count: SampleCount }> {
    const { valueDependent, textSearch = false, catalogue = false } = kind;
    if (!valueDependent) {
      const [found, count] = await Promise.all([
        this.searchPage(condition, { ...page, prepared: true }),
        this.count(condition, catalogue),
      ]);
      return { ...found, count };
    }
    const estimate = kind.estimate ?? (await this.estimate(condition));
    if (textSearch && estimate > COLLECT_ESTIMATE_MAX) {
      // Many matches expected: the page from the newest-first walk when matches are dense among
      // recent samples, with the estimate as its count; else collected like a selective search.
      const walked = await this.walkedIds(condition, page);
      if (walked) return { ...(await this.pageOf(walked, page)), count: { count: estimate, exact: false } };
    }
    const collected = await this.searchCollected(condition, page, estimate);
    return { ...(collected.page ?? (await this.searchPage(condition, page))), count: collected.count };
  }

  /**
   * A search page and its exact count in one pass over the matches, for conditions the planner
   * expects to match few rows (text patterns, selective filters): every match is collected (on the
   * trigram or filter indexes, in no particular order, stopping one past EXACT_COUNT_LIMIT), then the page is sorted out of
   * them. Walking the newest-first index instead is fast only when matches are dense among recent
   * samples — a rare term whose matches are all old would walk most of the table — and a separate
   * count would search the trigram index twice. `estimate` is the planner's (see estimate()).
   * Without `page` when more than EXACT_COUNT_LIMIT match, or are expected to (then `count` is the
   * estimate, raised to what was seen):
   * the caller pages along the index (matches are dense enough) and estimates the count.
   */
  private async searchCollected(
    condition: Sql,
    page: SamplePageRequest,
    estimate: number,
  ): Promise<{ page?: { rows: SampleRow[]; more: boolean }; count: SampleCount }> {
    if (estimate > ESTIMATE_ONLY_ABOVE) return { count: { count: estimate, exact: false } };
    const [found] = await this.pooled<{ total: number; ids: string[] }>(collectedStatement(condition, page));
    // More than the limit: the count is known to exceed it; the caller pages along the index.
    if (found.total > EXACT_COUNT_LIMIT) return { count: { count: Math.max(estimate, found.total), exact: false } };
    return {
      page: {
        rows: await this.sampleRepository.byIds(found.ids.slice(0, page.limit)),
        more: found.ids.length > page.limit,
      },
      count: { count: found.total, exact: true },
    };
  }

  /**
   * The plans of the statements a search page runs, as EXPLAIN prints them: `collected` (a
   * condition expected to match few samples: every match collected, see searchCollected), `ids`
   * (paging along the newest-first order), `walk` (the same page walked along the newest-first
   * index, see newestFirstWalkStatement), then `details` for those ids, both as planned for these
   * ids and as the generic plan a prepared statement settles on (`genericDetails`). For tests and
   * for operators checking a slow search.
   */
  async explainSearchPage(condition: Sql, page: SamplePageRequest): Promise<Record<string, string>> {
    const collected = collectedStatement(condition, page).toQuery();
    const idsQuery = pageIdsStatement(condition, page).toQuery();
    const walk = newestFirstWalkStatement(condition, page, page.offset + page.limit + 1).toQuery();
    const text = (rows: unknown) => (rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const ids = ((await runner.query(idsQuery.text, idsQuery.values)) as { id: string }[]).map((row) => row.id);
      const plans: Record<string, string> = {
        collected: text(await runner.query(`EXPLAIN ${collected.text}`, collected.values)),
        ids: text(await runner.query(`EXPLAIN ${idsQuery.text}`, idsQuery.values)),
        walk: text(await runner.query(`EXPLAIN ${walk.text}`, walk.values)),
        details: text(await runner.query(`EXPLAIN ${BY_IDS}`, [ids])),
      };
      // EXPLAIN EXECUTE takes no bind parameters: the ids (digits only) go in as a literal.
      const literal = `'{${ids.filter((id) => /^\d+$/.test(id)).join(',')}}'`;
      await runner.query(`PREPARE explain_sample_by_ids(bigint[]) AS ${BY_IDS}`);
      try {
        await runner.query('SET plan_cache_mode = force_generic_plan');
        plans.genericDetails = text(await runner.query(`EXPLAIN EXECUTE explain_sample_by_ids(${literal})`));
      } finally {
        await runner.query('RESET plan_cache_mode');
        await runner.query('DEALLOCATE explain_sample_by_ids');
      }
      return plans;
    } finally {
      await runner.release();
    }
  }

  /**
   * How many samples match: exact up to EXACT_COUNT_LIMIT (counting stops one row past it), the
   * planner's estimate beyond. A condition the planner expects to match far more rows is not
   * counted at all, so a broad search costs one plan, not a scan of every match. The whole public
   * catalogue (`catalogue`), when large, reuses its last estimate for CATALOGUE_ESTIMATE_REUSE_MS.
   */
  private async count(condition: Sql, catalogue: boolean): Promise<SampleCount> {
    const remembered = catalogue ? this.catalogueEstimate.current() : undefined;
    if (remembered !== undefined) return { count: remembered, exact: false };
    const estimate = await this.estimate(condition);
    if (catalogue) this.catalogueEstimate.remember(estimate);
    if (estimate > ESTIMATE_ONLY_ABOVE) return { count: estimate, exact: false };
    // Without statistics the estimate means nothing, and a bounded count still reads up to
    // EXACT_COUNT_LIMIT rows per request: the estimate is answered, flagged, instead (null here).
    const [row] = await this.pooled<{ count: number | null }>(
      sql`SELECT CASE WHEN ${SAMPLE_STATISTICS_KNOWN} THEN (SELECT count(*)::int FROM (SELECT 1 FROM sample s
          WHERE ${condition} LIMIT ${EXACT_COUNT_BOUND}) bounded) END AS count`,
    );
    if (row.count === null) return { count: estimate, exact: false };
    if (row.count <= EXACT_COUNT_LIMIT) return { count: row.count, exact: true };
    return { count: Math.max(estimate, row.count), exact: false };
  }

  /**
   * How often each trigram occurs in the samples' names (NameTrigramFrequencies), from the names on
   * about NAME_SAMPLE_PAGES pages of the table picked at random (all of a small table): 8 MB read at
   * most, whatever the table's size. Only trigrams inside a word (no padding), as pg_trgm indexes them;
   * and how many of the names read are public (`publicCondition`, on alias `s`).
   */
  async nameTrigramSample(publicCondition: Sql): Promise<NameTrigramFrequencies> {
    const [{ pages }] = await this.pooled<{ pages: string }>(
      sql`SELECT pg_relation_size('sample') / current_setting('block_size')::int AS pages`,
    );
    const percent = Math.min(100, (100 * NAME_SAMPLE_PAGES) / Math.max(Number(pages), 1));
    const rows = await this.pooled<{ trigram: string | null; names: number; public: number }>(
      sql`WITH names AS MATERIALIZED (
            SELECT lower(s.name) AS name, (${publicCondition}) AS public FROM sample s TABLESAMPLE SYSTEM (${percent}::float8))
          SELECT NULL AS trigram, count(*)::int AS names, count(*) FILTER (WHERE names.public)::int AS public FROM names
          UNION ALL
          (SELECT t, count(*)::int, 0 FROM names CROSS JOIN LATERAL unnest(show_trgm(names.name)) t
            WHERE strpos(t, ' ') = 0 GROUP BY t HAVING count(*) > 1)`,
    );
    const total = rows.find((row) => row.trigram === null);
    const sampled = total?.names ?? 0;
    const counts = new Map(rows.filter((row) => row.trigram !== null).map((row) => [row.trigram as string, row.names]));
    return new NameTrigramFrequencies(Math.round((sampled * 100) / percent), sampled, counts, total?.public ?? 0);
  }

  /** The planner's estimate of how many samples match. */
  private async estimate(condition: Sql): Promise<number> {
    const [row] = await this.pooled<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM sample s WHERE ${condition}`,
    );
    return Math.round(row['QUERY PLAN'][0].Plan['Plan Rows']);
  }
}
