import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { ORCID } from '../agents/agent-identity';
import { escapeLike } from '../vocabularies/common/label-search';
import { DEFAULT_SAMPLE_ORDER, SampleOrder, orderBySql } from './sample-ordering';
import { SqlCondition } from './sample-access.policy';
import { BoundingBox } from './sample-search';
import { FLAT_SAMPLE_JOINS, FlatColumnSql, SAMPLE_VOCABULARY_JOINS } from './sample-flat-columns';
import { SampleRow } from './sample.mapper';
import { StoreStatus } from './sample.entity';

/**
 * Up to this many matching rows a search's `count` is exact; above it, the planner's estimate
 * (`count_exact: false`). Counting more would visit every matching row on every page request.
 */
export const EXACT_COUNT_LIMIT = 10_000;
/** When the planner expects more than this many rows the exact count is not even attempted. */
const ESTIMATE_ONLY_ABOVE = 2 * EXACT_COUNT_LIMIT;

/**
 * Everything a sample's JSON needs, for rows picked by `WHERE …` on alias `s`. The rows are always
 * picked first (by id or IGSN, on a unique index); every other table is reached from them by its
 * primary key — small vocabulary tables by join, the parent sample by a scalar subquery — so no
 * plan can turn into a scan of `sample` per result row, whatever the statistics say.
 */
export const SAMPLE_DETAIL = `
  SELECT s.id, s.igsn, s.registry_code, s.name, s.external_sample_id, ot.label AS object_type, ot.hierarchical_label AS object_type_path,
         s.legacy_sample_type, s.general_material_type, s.material_types, s.sample_description, s.latitude, s.longitude,
         s.end_latitude, s.end_longitude, s.elevation, s.elevation_end, s.elevation_unit, s.depth_min, s.depth_max,
         s.depth_unit, s.country, s.province, s.county, s.city, s.locality, s.location_description,
         s.location_method, s.purpose, s.size, s.field_name, s.primary_location_name, s.primary_location_type,
         s.vertical_datum, s.northing, s.easting, s.zone, s.depth_scale, s.size_unit, s.cruise_field_prgrm,
         s.current_archive_contact, s.original_archive_contact,
         (SELECT ps.igsn FROM sample ps WHERE ps.id = s.parent_sample_id) AS parent_igsn, s.external_parent_name,
         s.external_parent_object_type, s.other_names, s.numeric_age_min, s.numeric_age_max, s.numeric_age_unit,
         s.geologic_age_verbatim, s.geologic_unit, s.sampling_method, s.sampling_method_detail,
         s.sampling_start_date, s.sampling_end_date, s.sampling_date_precision, s.launch_label,
         col.collectors,
         p.id AS platform_id, p.label AS platform_label, pt.label AS platform_type, p.description AS platform_description,
         lp.id AS launch_platform_id, lp.label AS launch_platform_label, lt.label AS launch_type,
         ca.id AS current_archive_id, ca.label AS current_archive_label,
         oa.id AS original_archive_id, oa.label AS original_archive_label,
         s.related_resources, lrr.linked_resources, s.metadata_store_status, s.publish_date, s.is_deactivated, s.deactivate_reason,
         s.deactivated_at, s.deactivate_duplicate_igsns,
         s.user_owner_id, s.team_owner_id, s.batch_id, s.created_at, s.updated_at,
         CASE WHEN sd.version > sd.delivered_version THEN 'pending' ELSE sd.state END AS doi_state,
         sd.updated_at AS doi_updated_at, sd.error AS doi_error
    FROM sample s ${SAMPLE_VOCABULARY_JOINS}
    LEFT JOIN sample_doi sd ON sd.sample_id = s.id
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object(
               'id', c.id,
               'individual', CASE WHEN i.id IS NULL THEN NULL ELSE json_build_object(
                  'id', i.id, 'label', i.label, 'fname', i.fname, 'lname', i.lname, 'individual_uri', i.individual_uri) END,
               'institution', CASE WHEN inst.id IS NULL THEN NULL ELSE json_build_object(
                  'id', inst.id, 'label', inst.label, 'ror', inst.ror) END,
               'description', c.description) ORDER BY sc.position) AS collectors
        FROM sample_collector sc
        JOIN collector c ON c.id = sc.collector_id
        LEFT JOIN individual i ON i.id = c.individual_id
        LEFT JOIN institution inst ON inst.id = c.institution_id
       WHERE sc.sample_id = s.id
    ) col ON true
    LEFT JOIN LATERAL (
      SELECT json_agg(json_build_object(
               'id', rr.id, 'label', rr.label, 'related_resource_type', rr.related_resource_type, 'uri', rr.uri,
               'uri_type', rr.uri_type, 'description', rr.description) ORDER BY rr.id) AS linked_resources
        FROM sample_related_resource srr
        JOIN related_resource rr ON rr.id = srr.related_resource_id
       WHERE srr.sample_id = s.id
    ) lrr ON true`;

/**
 * The period a sample was taken in, as indexed by idx_sample_sampling_period: start to end, either
 * alone when the other is missing; the index (and the search) leaves out samples with neither.
 */
const SAMPLING_PERIOD = `tstzrange(least(s.sampling_start_date, s.sampling_end_date),
                                   greatest(s.sampling_start_date, s.sampling_end_date), '[]')`;
const SAMPLING_PERIOD_PRESENT = 'COALESCE(s.sampling_start_date, s.sampling_end_date) IS NOT NULL';

/** Every name of a sample besides its own, as one lower-cased text the trigram index covers. */
export const OTHER_NAMES_TEXT = 'sample_other_names_text(s.other_names)';

const BY_IGSN = `${SAMPLE_DETAIL} WHERE s.igsn = $1`;
const BY_IDS = `${SAMPLE_DETAIL} WHERE s.id = ANY($1::bigint[])`;
const BY_IGSNS = `${SAMPLE_DETAIL} WHERE s.igsn = ANY($1::text[])`;

export interface PublicChild {
  parentId: string;
  igsn: string;
  name: string;
}

export interface SitemapEntry {
  igsn: string;
  updatedAt: Date;
}

/** Where a keyset page starts: after this (created_at, id), newest first. */
export interface SampleCursor {
  /** created_at as PostgreSQL prints it (a JS Date would lose the microseconds). */
  createdAt: string;
  id: string;
}

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
 * Whose samples a search looks at: what the public may see (the access policy's condition,
 * numbered from $1), or the caller's own (`personal`), their teams' that they do not own
 * (`shared`), or both — never deactivated ones.
 */
export type SampleSearchScope =
  | { public: SqlCondition }
  | { scope: 'personal' | 'shared' | 'personal_and_shared'; userId: number; teamIds: number[] };

/** The search filters that SampleRepository.filterClauses turns into SQL, parsed and checked. */
export interface SampleFilters {
  isDraft?: boolean;
  /** `q`: the IGSN (`igsn`, the text without the DOI prefix), the name or another name contains the text. */
  q?: { text: string; igsn: string };
  /** The name contains the text (case ignored). */
  name?: string;
  /** The IGSN contains the text (without the DOI prefix; case ignored). */
  igsn?: string;
  objectTypeIds?: number[];
  /** ISO 3166-1 alpha-2 codes, as stored. */
  countryCodes?: string[];
  registryCodes?: string[];
  parentId?: string;
  /** Samples with any of these collectors (SampleRepository.collectorIdsMatching resolves a `collector` filter). */
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
 * The statement of SampleRepository.searchCollected: every match (up to one past
 * EXACT_COUNT_LIMIT, in no particular order, so the planner starts from the condition's indexes),
 * counted, and the page's ids sorted out of them.
 */
function collectedStatement(condition: SqlCondition, page: SamplePageRequest): SqlCondition {
  const params = [...condition.params, page.limit + 1, page.offset];
  const order = page.order ?? DEFAULT_SAMPLE_ORDER;
  const sortKey = order.column === 'id' ? '' : `, s.${order.column}`;
  return {
    sql: `WITH matches AS MATERIALIZED (
            SELECT s.id${sortKey} FROM sample s WHERE ${condition.sql} LIMIT ${EXACT_COUNT_LIMIT + 1})
          SELECT (SELECT count(*)::int FROM matches) AS total,
                 ARRAY(SELECT id FROM matches ORDER BY ${orderBySql(order, '')}
                        LIMIT $${params.length - 1} OFFSET $${params.length}) AS ids`,
    params,
  };
}

/** The statement of one page of ids in the page's order (SampleRepository.searchPage). */
function pageIdsStatement(condition: SqlCondition, page: SamplePageRequest): SqlCondition {
  const params = [...condition.params, page.limit + 1, page.offset];
  return {
    sql: `SELECT s.id FROM sample s WHERE ${condition.sql}
           ORDER BY ${orderBySql(page.order ?? DEFAULT_SAMPLE_ORDER, 's')} LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  };
}

/**
 * Every SQL statement that reads `sample` and `sample_collector` (writes: SampleWriteRepository).
 * Samples, batches, curation, exports and legacy XML all come through here, so a plan is tuned in one place.
 *
 * Reads that return sample JSON run in two steps: first the ids (one table, one index, cheap to
 * plan), then SAMPLE_DETAIL for exactly those ids as a named prepared statement, planned once per
 * pooled connection. The ten-way join costs milliseconds to plan and well under one to execute.
 */
@Injectable()
export class SampleRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly routing: ReadRouting,
  ) {}

  /**
   * A read outside any transaction, named (prepared once per connection) when `name` is given. It
   * may run on a standby: ReadRouting decides (the primary for work that writes, and for callers
   * whose last write a standby has not replayed).
   */
  private pooled<T extends QueryResultRow>(text: string, values: unknown[], name?: string): Promise<T[]> {
    return this.routing.read((source) => pooledQuery<T>(source, text, values, name));
  }

  // ---------------------------------------------------------------- reads

  async byIgsn(suffix: string, manager?: EntityManager): Promise<SampleRow | undefined> {
    if (manager) return (await manager.query<SampleRow[]>(BY_IGSN, [suffix]))[0];
    return (await this.pooled<SampleRow>(BY_IGSN, [suffix], 'sample_by_igsn'))[0];
  }

  /** The rows of these IGSNs (bare suffixes), in no particular order. */
  async byIgsns(suffixes: string[]): Promise<SampleRow[]> {
    if (!suffixes.length) return [];
    return this.pooled<SampleRow>(BY_IGSNS, [suffixes], 'sample_by_igsns');
  }

  /** The rows of these ids, in the order given. */
  async byIds(ids: (number | string)[], manager?: EntityManager): Promise<SampleRow[]> {
    if (!ids.length) return [];
    const values = [ids.map(String)];
    const rows = manager
      ? await manager.query<SampleRow[]>(BY_IDS, values)
      : await this.pooled<SampleRow>(BY_IDS, values, 'sample_by_ids');
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(String(id))).filter((row): row is SampleRow => row !== undefined);
  }

  /**
   * The WHERE clause of a search (GET /api/samples/ and exports), on alias `s`: the scope, then the
   * filters. Built here alone, so its text — and the plans and prepared statements keyed on it —
   * is the same wherever a search runs.
   */
  searchCondition(scope: SampleSearchScope, filters: SampleFilters): SqlCondition {
    const params: unknown[] = [];
    const clauses: string[] = [];
    if ('public' in scope) {
      clauses.push(scope.public.sql);
      params.push(...scope.public.params);
    } else {
      const me = `$${params.push(scope.userId)}`;
      const personal = `s.user_owner_id = ${me}`;
      const shared = () =>
        `(s.team_owner_id = ANY($${params.push(scope.teamIds)}::int[])` +
        ` AND s.user_owner_id IS DISTINCT FROM ${me})`;
      clauses.push('NOT s.is_deactivated');
      // Reserved samples (IGSNs minted before fieldwork, thousands at a time) would bury the described
      // ones: they are listed only when asked for (filterClauses, storeStatus).
      if (filters.storeStatus === undefined) clauses.push("s.metadata_store_status <> 'reserved'");
      clauses.push(
        scope.scope === 'personal' ? personal : scope.scope === 'shared' ? shared() : `(${personal} OR ${shared()})`,
      );
    }
    clauses.push(...this.filterClauses(filters, params));
    return { sql: clauses.join(' AND '), params };
  }

  /**
   * SQL conditions on alias `s` for the filters; their values are appended to `params` (so the
   * placeholders continue the caller's numbering). Text filters match substrings (on the trigram
   * indexes); each selective filter has an index to start from (migration SampleSearchFilters).
   */
  filterClauses(filters: SampleFilters, params: unknown[]): string[] {
    const clauses: string[] = [];
    const value = (v: unknown) => `$${params.push(v)}`;
    if (filters.isDraft !== undefined) {
      clauses.push(filters.isDraft ? "s.metadata_store_status = 'draft'" : "s.metadata_store_status <> 'draft'");
    }
    if (filters.q !== undefined) {
      const { text, igsn } = filters.q;
      clauses.push(
        `(s.igsn LIKE $${params.push(likePattern(igsn.toUpperCase()))} OR lower(s.name) LIKE $${params.push(likePattern(text.toLowerCase()))}
          OR ${OTHER_NAMES_TEXT} LIKE $${params.length})`,
      );
    }
    if (filters.name !== undefined)
      clauses.push(`lower(s.name) LIKE ${value(likePattern(filters.name.toLowerCase()))}`);
    if (filters.igsn !== undefined) clauses.push(`s.igsn LIKE ${value(likePattern(filters.igsn.toUpperCase()))}`);
    if (filters.objectTypeIds) clauses.push(`s.object_type_id = ANY(${value(filters.objectTypeIds)}::int[])`);
    if (filters.countryCodes) clauses.push(`s.country = ANY(${value(filters.countryCodes)}::text[])`);
    if (filters.registryCodes) clauses.push(`s.registry_code = ANY(${value(filters.registryCodes)}::text[])`);
    if (filters.externalSampleId !== undefined)
      clauses.push(`s.external_sample_id = ${value(filters.externalSampleId)}`);
    if (filters.parentId !== undefined) clauses.push(`s.parent_sample_id = ${value(filters.parentId)}::bigint`);
    if (filters.collectorIds) {
      clauses.push(
        filters.collectorIds.length
          ? `s.id IN (SELECT sc.sample_id FROM sample_collector sc WHERE sc.collector_id = ANY(${value(filters.collectorIds)}::int[]))`
          : 'false',
      );
    }
    const box = filters.bbox;
    if (box) {
      const lat = `s.latitude BETWEEN ${value(box.minLat)}::float8 AND ${value(box.maxLat)}::float8`;
      const [west, east] = [value(box.minLon), value(box.maxLon)];
      // minLon > maxLon: the box crosses the antimeridian (180°) and holds both sides of it.
      const lon =
        box.minLon <= box.maxLon
          ? `s.longitude BETWEEN ${west}::float8 AND ${east}::float8`
          : `(s.longitude >= ${west}::float8 OR s.longitude <= ${east}::float8)`;
      clauses.push(`${lat} AND ${lon}`);
    }
    if (filters.sampling) {
      // A sample taken over days matches when that period overlaps the range (GiST index).
      clauses.push(`${SAMPLING_PERIOD_PRESENT} AND ${SAMPLING_PERIOD}
                      && tstzrange(${value(filters.sampling.from ?? null)}::timestamptz, ${value(filters.sampling.to ?? null)}::timestamptz, '[)')`);
    }
    if (filters.created?.from) clauses.push(`s.created_at >= ${value(filters.created.from)}::timestamptz`);
    if (filters.created?.to) clauses.push(`s.created_at < ${value(filters.created.to)}::timestamptz`);
    if (filters.batchId !== undefined) clauses.push(`s.batch_id = ${value(filters.batchId)}::int`);
    if (filters.storeStatus !== undefined) clauses.push(`s.metadata_store_status = ${value(filters.storeStatus)}`);
    return clauses;
  }

  /**
   * The collectors a `collector` filter names: a person by ORCID iD (on the identifier index), or a
   * substring (case and accents ignored) of a person's label or alternative label or an
   * institution's label. Collectors are few beside samples, so they are found first and the planner
   * then sees their ids (and how many samples each has) when it plans the samples.
   */
  async collectorIdsMatching(filter: { orcid: string } | { name: string }): Promise<number[]> {
    let match: string;
    if ('orcid' in filter) {
      match = `i.individual_uri IS NOT NULL AND ${ORCID.key('i.individual_uri')} = ${ORCID.key('$1::text')}`;
    } else {
      const pattern = `'%' || lower(immutable_unaccent($1::text)) || '%'`;
      match = `(lower(immutable_unaccent(i.label)) LIKE ${pattern} OR lower(immutable_unaccent(i.alt_label)) LIKE ${pattern}
                OR lower(immutable_unaccent(inst.label)) LIKE ${pattern})`;
    }
    const rows = await this.pooled<{ id: number }>(
      `SELECT c.id FROM collector c
         LEFT JOIN individual i ON i.id = c.individual_id
         LEFT JOIN institution inst ON inst.id = c.institution_id
        WHERE ${match}`,
      ['orcid' in filter ? filter.orcid : escapeLike(filter.name)],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * One page of a search, newest first then id: `limit` rows after `offset`, and whether more
   * follow (one extra id is read, so `next` never depends on the count being exact).
   */
  async searchPage(condition: SqlCondition, page: SamplePageRequest): Promise<{ rows: SampleRow[]; more: boolean }> {
    const { sql: text, params } = pageIdsStatement(condition, page);
    const ids = await this.pooled<{ id: string }>(text, params, page.prepared ? statementName('sp', text) : undefined);
    const more = ids.length > page.limit;
    return { rows: await this.byIds(ids.slice(0, page.limit).map((row) => row.id)), more };
  }

  /**
   * A page of a search with its count (in `page.order`, newest first by default). `valueDependent`: the condition's best plan changes from one
   * value to the next (text patterns, a registry code, a box, a date range, …) — a condition expected
   * to match few samples is collected in one pass with its exact count (searchCollected), anything
   * broader pages along the newest-first index. Other conditions run as prepared statements, page
   * and count side by side.
   */
  async searchWithCount(
    condition: SqlCondition,
    page: Omit<SamplePageRequest, 'prepared'>,
    valueDependent: boolean,
  ): Promise<{ rows: SampleRow[]; more: boolean; count: SampleCount }> {
    if (!valueDependent) {
      const [found, count] = await Promise.all([
        this.searchPage(condition, { ...page, prepared: true }),
        this.count(condition),
      ]);
      return { ...found, count };
    }
    const collected = await this.searchCollected(condition, page, await this.estimate(condition));
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
    condition: SqlCondition,
    page: SamplePageRequest,
    estimate: number,
  ): Promise<{ page?: { rows: SampleRow[]; more: boolean }; count: SampleCount }> {
    if (estimate > ESTIMATE_ONLY_ABOVE) return { count: { count: estimate, exact: false } };
    const { sql, params } = collectedStatement(condition, page);
    const [found] = await this.pooled<{ total: number; ids: string[] }>(sql, params);
    // More than the limit: the count is known to exceed it; the caller pages along the index.
    if (found.total > EXACT_COUNT_LIMIT) return { count: { count: Math.max(estimate, found.total), exact: false } };
    return {
      page: { rows: await this.byIds(found.ids.slice(0, page.limit)), more: found.ids.length > page.limit },
      count: { count: found.total, exact: true },
    };
  }

  /**
   * The plans of the statements a search page runs, as EXPLAIN prints them: `collected` (a
   * condition expected to match few samples: every match collected, see searchCollected), `ids`
   * (paging along the newest-first order), then `details` for those ids, both as planned for these
   * ids and as the generic plan a prepared statement settles on (`genericDetails`). For tests and
   * for operators checking a slow search.
   */
  async explainSearchPage(condition: SqlCondition, page: SamplePageRequest): Promise<Record<string, string>> {
    const collected = collectedStatement(condition, page);
    const { sql: idsSql, params } = pageIdsStatement(condition, page);
    const text = (rows: unknown) => (rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const ids = ((await runner.query(idsSql, params)) as { id: string }[]).map((row) => row.id);
      const plans: Record<string, string> = {
        collected: text(await runner.query(`EXPLAIN ${collected.sql}`, collected.params)),
        ids: text(await runner.query(`EXPLAIN ${idsSql}`, params)),
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
   * counted at all, so a broad search costs one plan, not a scan of every match.
   */
  private async count(condition: SqlCondition): Promise<SampleCount> {
    const estimate = await this.estimate(condition);
    if (estimate > ESTIMATE_ONLY_ABOVE) return { count: estimate, exact: false };
    const [row] = await this.pooled<{ count: number }>(
      `SELECT count(*)::int AS count FROM (SELECT 1 FROM sample s WHERE ${condition.sql}
          LIMIT ${EXACT_COUNT_LIMIT + 1}) bounded`,
      condition.params,
    );
    if (row.count <= EXACT_COUNT_LIMIT) return { count: row.count, exact: true };
    return { count: Math.max(estimate, row.count), exact: false };
  }

  /** The planner's estimate of how many samples match. */
  private async estimate(condition: SqlCondition): Promise<number> {
    const [row] = await this.pooled<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM sample s WHERE ${condition.sql}`,
      condition.params,
    );
    return Math.round(row['QUERY PLAN'][0].Plan['Plan Rows']);
  }

  /**
   * A keyset page for exports, inside the caller's (snapshot) transaction: `limit` rows after the
   * cursor, each walked on an index range however deep the export goes.
   */
  async keysetPage(
    manager: EntityManager,
    condition: SqlCondition,
    after: SampleCursor | undefined,
    limit: number,
  ): Promise<{ rows: SampleRow[]; cursor?: SampleCursor }> {
    const params = [...condition.params];
    const keyset = after
      ? ` AND (s.created_at, s.id) < ($${params.push(after.createdAt)}::timestamptz, $${params.push(after.id)}::bigint)`
      : '';
    const ids = await manager.query<{ id: string; created_at: string }[]>(
      `SELECT s.id, s.created_at::text AS created_at FROM sample s WHERE (${condition.sql})${keyset}
        ORDER BY s.created_at DESC, s.id DESC LIMIT $${params.push(limit)}`,
      params,
    );
    if (!ids.length) return { rows: [] };
    const last = ids[ids.length - 1];
    return {
      rows: await this.byIds(
        ids.map((row) => row.id),
        manager,
      ),
      cursor: { createdAt: last.created_at, id: last.id },
    };
  }

  /**
   * Runs `work` in one read-only REPEATABLE READ transaction: every statement it runs through the
   * manager sees the same snapshot (an export's count and all its pages). On a standby when
   * ReadRouting says so (an export job run for its owner); a standby failing midway runs `work`
   * again, whole, on the primary.
   */
  async inReadOnlySnapshot<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.routing.read((source) =>
      source.transaction('REPEATABLE READ', async (manager) => {
        await manager.query('SET TRANSACTION READ ONLY');
        return work(manager);
      }),
    );
  }

  /** How many samples match and how many registry codes they span (one code: its name). */
  async registryCodeFacts(
    manager: EntityManager,
    condition: SqlCondition,
  ): Promise<{ count: number; codes: number; code: string | null }> {
    const [facts] = await manager.query<{ count: number; codes: number; code: string | null }[]>(
      `SELECT count(*)::int AS count, count(DISTINCT s.registry_code)::int AS codes, min(s.registry_code) AS code
         FROM sample s WHERE ${condition.sql}`,
      condition.params,
    );
    return facts;
  }

  /** IGSNs and names of the batch's samples among `suffixes` that match `condition`. */
  async namesInBatch(
    manager: EntityManager,
    batchId: number,
    suffixes: string[],
    condition: SqlCondition,
  ): Promise<{ igsn: string; name: string }[]> {
    return manager.query(
      `SELECT s.igsn, s.name FROM sample s WHERE s.batch_id = $1 AND s.igsn = ANY($2::text[]) AND ${condition.sql}`,
      [batchId, suffixes, ...condition.params],
    );
  }

  /** The batch's drafts matching `condition` that lack coordinates (first `limit`, with the total). */
  async draftsWithoutCoordinates(
    manager: EntityManager,
    batchId: number,
    condition: SqlCondition,
    limit: number,
  ): Promise<{ igsn: string; latitude: number | null; longitude: number | null; total: number }[]> {
    return manager.query(
      `SELECT s.igsn, s.latitude, s.longitude, count(*) OVER ()::int AS total
         FROM sample s
        WHERE s.batch_id = $1 AND s.metadata_store_status = 'draft' AND ${condition.sql}
          AND (s.latitude IS NULL OR s.longitude IS NULL)
        ORDER BY s.id
        LIMIT ${Number(limit)}`,
      [batchId, ...condition.params],
    );
  }

  /**
   * One pass over the matching samples: totals per store status and, per flat column `i`, its
   * smallest value `v<i>`, whether every sample has that one value `s<i>`, whether any has one `a<i>`.
   */
  async flatAggregate<T>(condition: SqlCondition, columns: FlatColumnSql[]): Promise<T> {
    const perColumn = columns.map((column, index) => {
      // Bytewise comparison: exact equality, and cheaper than the database collation.
      const value = column.format === 'text' || column.format === 'igsn' ? `(${column.sql}) COLLATE "C"` : column.sql;
      return `min(${value}) AS v${index},
              (count(${value}) = count(*) AND min(${value}) = max(${value})) AS s${index},
              count(${value}) > 0 AS a${index}`;
    });
    const sql = `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE s.metadata_store_status = 'draft')::int AS draft,
              count(*) FILTER (WHERE s.metadata_store_status = 'pending-review')::int AS pending_review,
              count(*) FILTER (WHERE s.metadata_store_status = 'published')::int AS published,
              ${perColumn.join(',\n')}
         FROM sample s
         ${FLAT_SAMPLE_JOINS}
        WHERE ${condition.sql}`;
    return this.dataSource.transaction(async (manager) => {
      // From ~7,500 samples the planner's cost passes jit_above_cost, and JIT-compiling these ~200
      // aggregates takes seconds — far more than running them (see bench/curation).
      await manager.query('SET LOCAL jit = off');
      const [row] = await manager.query<T[]>(sql, condition.params);
      return row;
    });
  }

  /** A page of matching samples in registration order: `sample_igsn`, `sample_name`, then `c<i>` per column. */
  async flatPage(
    condition: SqlCondition,
    columns: FlatColumnSql[],
    page: { limit: number; offset: number },
  ): Promise<Record<string, unknown>[]> {
    const params = [...condition.params, page.limit, page.offset];
    const values = columns.map((column, index) => `, ${column.sql} AS c${index}`).join('');
    return this.dataSource.query<Record<string, unknown>[]>(
      `SELECT s.id, s.igsn AS sample_igsn, s.name AS sample_name${values}
         FROM (SELECT s.id FROM sample s WHERE ${condition.sql}
                ORDER BY s.id LIMIT $${params.length - 1} OFFSET $${params.length}) picked
         JOIN sample s ON s.id = picked.id
         ${FLAT_SAMPLE_JOINS}
        ORDER BY s.id`,
      params,
    );
  }

  // ---------------------------------------------------------------- public pages (landing pages, sitemap, DataCite)

  /*
   * `visible` is the access policy's condition on alias `s` (SampleAccessPolicy.publicCondition with
   * offset 0): its parameters come first, the method's own follow.
   */

  /** Whether the sample of this id meets `condition` (on alias `s`, placeholders after `$1`). */
  async meets(id: number | string, condition: SqlCondition): Promise<boolean> {
    const rows = await this.pooled<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM sample s WHERE s.id = $1 AND ${condition.sql}) AS found`,
      [String(id), ...condition.params],
    );
    return rows[0]?.found === true;
  }

  /** Visible children of the given samples, by parent, oldest first (at most `limit` per parent). */
  async childrenOf(
    parentIds: readonly (number | string)[],
    visible: SqlCondition,
    limit = 1000,
  ): Promise<PublicChild[]> {
    if (!parentIds.length) return [];
    const n = visible.params.length;
    const rows = await this.pooled<{ parent_id: string; igsn: string; name: string }>(
      `SELECT p.id AS parent_id, c.igsn, c.name
         FROM unnest($${n + 1}::bigint[]) AS p(id)
         CROSS JOIN LATERAL (
           SELECT s.igsn, s.name FROM sample s
            WHERE s.parent_sample_id = p.id AND ${visible.sql}
            ORDER BY s.id LIMIT $${n + 2}
         ) c`,
      [...visible.params, parentIds.map(String), limit],
    );
    return rows.map((row) => ({ parentId: String(row.parent_id), igsn: row.igsn, name: row.name }));
  }

  /** `condition` narrowed by filters (their placeholders follow the condition's). */
  narrowed(condition: SqlCondition, filters: SampleFilters): SqlCondition {
    const params = [...condition.params];
    return { sql: [condition.sql, ...this.filterClauses(filters, params)].join(' AND '), params };
  }

  /** How many samples match, counting at most `limit` + 1 (so `limit` + 1 means "more than limit"). */
  async countUpTo(condition: SqlCondition, limit: number): Promise<number> {
    const [row] = await this.pooled<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM sample s WHERE ${condition.sql} LIMIT $${condition.params.length + 1}) v`,
      [...condition.params, limit + 1],
    );
    return row.n;
  }

  /** True when more than `limit` samples are visible: counts at most limit + 1 index entries. */
  async moreThan(limit: number, visible: SqlCondition): Promise<boolean> {
    const [row] = await this.pooled<{ n: string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM sample s WHERE ${visible.sql} LIMIT $${visible.params.length + 1}) v`,
      [...visible.params, limit + 1],
    );
    return Number(row.n) > limit;
  }

  /**
   * The id ranges `[k * size, (k + 1) * size)` holding at least one visible sample, found by
   * skipping through the id index (one probe per range) rather than reading every row.
   */
  async nonEmptyIdRanges(size: number, visible: SqlCondition): Promise<number[]> {
    const step = `$${visible.params.length + 1}::bigint`;
    const rows = await this.pooled<{ k: string }>(
      `WITH RECURSIVE ranges(k) AS (
         SELECT (SELECT s.id FROM sample s WHERE ${visible.sql} ORDER BY s.id LIMIT 1) / ${step}
         UNION ALL
         SELECT (SELECT s.id FROM sample s WHERE ${visible.sql} AND s.id >= (r.k + 1) * ${step}
                  ORDER BY s.id LIMIT 1) / ${step}
           FROM ranges r WHERE r.k IS NOT NULL
       )
       SELECT k FROM ranges WHERE k IS NOT NULL`,
      [...visible.params, size],
    );
    return rows.map((row) => Number(row.k));
  }

  /** Visible samples with ids in `[from, to)` (to the end when `to` is null), in id order. */
  async idRange(from: number, to: number | null, visible: SqlCondition): Promise<SitemapEntry[]> {
    const n = visible.params.length;
    const rows = await this.pooled<{ igsn: string; updated_at: Date }>(
      `SELECT s.igsn, s.updated_at FROM sample s
        WHERE ${visible.sql} AND s.id >= $${n + 1} AND ($${n + 2}::bigint IS NULL OR s.id < $${n + 2})
        ORDER BY s.id`,
      [...visible.params, from, to],
    );
    return rows.map((row) => ({ igsn: row.igsn, updatedAt: row.updated_at }));
  }
}

/** A LIKE pattern matching values that contain `value` literally. */
function likePattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

/** A stable name for a prepared statement: the same text always gets the same name. */
function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}
