import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { QueryResultRow } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { Sql, bind, empty, sql } from '../../core/database/sql';
import { analyzeStaleTables, cleanGinPendingLists } from '../../core/database/table-statistics';
import { SAMPLE_VOCABULARY_JOINS } from './sample-flat-columns';
import { SampleRow } from './sample.mapper';
import { Sample, SampleCollector } from './sample.entity';

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

const BY_IGSN = `${SAMPLE_DETAIL} WHERE s.igsn = $1`;
export const BY_IDS = `${SAMPLE_DETAIL} WHERE s.id = ANY($1::bigint[])`;
const BY_IGSNS = `${SAMPLE_DETAIL} WHERE s.igsn = ANY($1::text[])`;

/**
 * A curation transition of a batch's samples (SampleRepository.updateBatch): to review (drafts
 * only), published (samples pending review only), or deactivated (whatever their state).
 */
export type BatchSampleChange =
  | { to: 'pending-review'; at: Date }
  | { to: 'published'; at: Date }
  | { to: 'deactivated'; at: Date; reason: string; comment: string | null };

/** The SET list of a transition and the state the samples must be in (the only SQL text curation needs). */
function batchChangeSql(change: BatchSampleChange): { set: Sql; fromState: Sql } {
  const at = bind(change.at);
  switch (change.to) {
    case 'pending-review':
      return {
        set: sql`metadata_store_status = 'pending-review', updated_at = ${at}`,
        fromState: sql` AND s.metadata_store_status = ${'draft'}`,
      };
    case 'published':
      return {
        set: sql`metadata_store_status = 'published', publish_date = COALESCE(s.publish_date, ${at}), updated_at = ${at}`,
        fromState: sql` AND s.metadata_store_status = ${'pending-review'}`,
      };
    case 'deactivated':
      return {
        set: sql`is_deactivated = true, deactivate_reason = ${change.reason}, deactivate_comment = ${change.comment},
                  deactivated_at = ${at}, updated_at = ${at}`,
        fromState: empty,
      };
  }
}

/** Sample columns (database names) an INSERT of many rows may set, as one JSON record each. */
export type SampleRecord = Record<string, unknown>;

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const driver = error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : {};
  return driver.code === '23505' && driver.constraint === constraint;
}

/**
 * The IGSN a failed insert found taken, from PostgreSQL's detail of the violation; undefined when
 * it was no duplicate IGSN or the detail cannot be read (the server's messages may be translated).
 */
export function takenIgsnOf(error: unknown): string | undefined {
  if (!isUniqueViolation(error, 'uq_sample_igsn')) return undefined;
  const detail = ((error as QueryFailedError).driverError as { detail?: string }).detail ?? '';
  return /^Key \(igsn\)=\((.*)\) already exists\.$/.exec(detail)?.[1];
}

/**
 * Samples by key (id, IGSN) and the statements that write `sample` and `sample_collector`. The
 * reads of one consumer live beside it: SampleSearchRepository (search), SampleSelectionRepository
 * (exports, label sheets),
 * SamplePublicRepository (landing pages, sitemap, DataCite, OAI-PMH), SampleCurationRepository,
 * SampleHarvestRepository.
 *
 * Reads that return sample JSON run in two steps: first the ids (one table, one index, cheap to
 * plan), then SAMPLE_DETAIL for exactly those ids as a named prepared statement, planned once per
 * pooled connection. The ten-way join costs milliseconds to plan and well under one to execute.
 */
@Injectable()
export class SampleRepository {
  private readonly logger = new Logger(SampleRepository.name);

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

  // ---------------------------------------------------------------- writes

  async igsnExists(manager: EntityManager, suffix: string): Promise<boolean> {
    return manager.existsBy(Sample, { igsn: suffix });
  }

  /**
   * The IGSN of the active sample of `ownerId` that carries `externalId` (the rows of
   * uq_sample_owner_external_id), other than sample `exceptId`; undefined when there is none.
   */
  async igsnByExternalId(
    manager: EntityManager,
    ownerId: number,
    externalId: string,
    exceptId?: number,
  ): Promise<string | undefined> {
    const rows: { igsn: string }[] = await manager.query(
      `SELECT igsn FROM sample
        WHERE user_owner_id = $1 AND external_sample_id = $2 AND NOT is_deactivated AND id <> $3
        LIMIT 1`,
      [ownerId, externalId, exceptId ?? 0],
    );
    return rows[0]?.igsn;
  }

  /**
   * The next `count` counter values of the registry code's minting sequence, ascending (consecutive
   * unless other registrations take values at the same moment); undefined for an unknown code.
   */
  async nextCounterValues(manager: EntityManager, code: string, count: number): Promise<number[] | undefined> {
    try {
      const rows = await manager.query<{ value: string }[]>(
        'SELECT nextval(igsn_sequence_name($1)::regclass) AS value FROM generate_series(1, $2) ORDER BY 1',
        [code, count],
      );
      return rows.map((row) => Number(row.value));
    } catch (error) {
      const sqlState = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
      if (sqlState === '42P01') return undefined; // no such sequence: no such code
      throw error;
    }
  }

  /**
   * Moves the code's minting sequence forward to `value` (never back: a concurrent nextval past it
   * stays), so minting jumps over a range it must not hand out.
   */
  async advanceCounterTo(manager: EntityManager, code: string, value: number): Promise<void> {
    await manager.query(
      `SELECT setval(s.seq, $2) FROM (SELECT igsn_sequence_name($1)::regclass AS seq) s
        WHERE coalesce(pg_sequence_last_value(s.seq), 0) < $2`,
      [code, value],
    );
  }

  /** IGSNs of the form `code + counter` already taken in [first, last] (a minted block's range). */
  async takenIgsnsBetween(manager: EntityManager, first: string, last: string): Promise<Set<string>> {
    // A block is one contiguous, lexically ordered range (base-36 digits sort as ASCII): a btree
    // range scan finds values already taken, where `= ANY(list)` may be planned on the trigram
    // index and recheck thousands of near-identical IGSNs per value.
    const rows = await manager.query<{ igsn: string }[]>(
      'SELECT igsn FROM sample WHERE igsn BETWEEN $1 AND $2 AND length(igsn) = $3',
      [first, last, first.length],
    );
    return new Set(rows.map((row) => row.igsn));
  }

  /**
   * The sample, locked for update until the transaction ends. FOR NO KEY UPDATE, not FOR UPDATE: a
   * write naming this sample as its parent (whose foreign-key check takes FOR KEY SHARE) need not
   * wait for it, which keeps parent changes free of deadlocks (see lockParentLinks).
   */
  async lockByIgsn(manager: EntityManager, suffix: string): Promise<Sample | null> {
    return manager.findOne(Sample, { where: { igsn: suffix }, lock: { mode: 'for_no_key_update' } });
  }

  /** The samples among these IGSNs, locked for update (FOR NO KEY UPDATE, as lockByIgsn) until the transaction ends. */
  async lockByIgsns(manager: EntityManager, suffixes: string[]): Promise<Sample[]> {
    if (!suffixes.length) return [];
    const ids = await manager.query<{ id: string }[]>(
      'SELECT id FROM sample WHERE igsn = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE',
      [suffixes],
    );
    if (!ids.length) return [];
    return manager
      .createQueryBuilder(Sample, 's')
      .where('s.id IN (:...ids)', { ids: ids.map((row) => row.id) })
      .getMany();
  }

  /** The samples among these IGSNs, unlocked (a batch's Parent IGSN cells). */
  async findByIgsns(manager: EntityManager, suffixes: string[]): Promise<Sample[]> {
    if (!suffixes.length) return [];
    return manager.createQueryBuilder(Sample, 's').where('s.igsn = ANY(:suffixes)', { suffixes }).getMany();
  }

  /** Links each child (by IGSN) to its parent (by id), in one statement. */
  async setParents(manager: EntityManager, links: { childIgsn: string; parentId: number }[]): Promise<void> {
    if (!links.length) return;
    await manager.query(
      `UPDATE sample s SET parent_sample_id = v.parent_id
         FROM unnest($1::text[], $2::bigint[]) AS v(igsn, parent_id)
        WHERE s.igsn = v.igsn`,
      [links.map((link) => link.childIgsn), links.map((link) => link.parentId)],
    );
  }

  /**
   * Makes writes that change existing samples' parents take turns until their transactions end: two
   * concurrent links (A under B, B under A) would each pass the cycle check alone. Taken after the
   * write's own row locks and before the check; the holder then needs no lock another parent writer
   * could hold (sample rows are locked FOR NO KEY UPDATE, which foreign-key checks do not wait for).
   */
  async lockParentLinks(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['sample.parent_sample_id']);
  }

  /**
   * For proposed links (child by IGSN → parent id), read as if they were stored, walks up each
   * child's new ancestors at most `maxDepth` steps: `cycle` when the walk comes back to the child,
   * `too-deep` when it is still going. Children without a problem are left out.
   */
  async parentLinkProblems(
    manager: EntityManager,
    links: { childIgsn: string; parentId: number }[],
    maxDepth: number,
  ): Promise<Map<string, 'cycle' | 'too-deep'>> {
    if (!links.length) return new Map();
    const rows = await manager.query<{ igsn: string; cycle: boolean }[]>(
      `WITH RECURSIVE link AS (
         SELECT s.id AS child_id, s.igsn, l.parent_id
           FROM unnest($1::text[], $2::bigint[]) AS l(igsn, parent_id)
           JOIN sample s ON s.igsn = l.igsn
       ), walk(child_id, current_id, depth) AS (
         SELECT child_id, parent_id, 1 FROM link
         UNION ALL
         SELECT w.child_id, COALESCE(l.parent_id, s.parent_sample_id), w.depth + 1
           FROM walk w
           JOIN sample s ON s.id = w.current_id
           LEFT JOIN link l ON l.child_id = w.current_id
          WHERE w.current_id <> w.child_id AND w.depth <= $3
            AND COALESCE(l.parent_id, s.parent_sample_id) IS NOT NULL
       )
       SELECT link.igsn, bool_or(w.current_id = w.child_id) AS cycle
         FROM walk w JOIN link ON link.child_id = w.child_id
        GROUP BY link.igsn
       HAVING bool_or(w.current_id = w.child_id) OR max(w.depth) > $3`,
      [links.map((link) => link.childIgsn), links.map((link) => link.parentId), maxDepth],
    );
    return new Map(rows.map((row) => [row.igsn, row.cycle ? 'cycle' : 'too-deep']));
  }

  /** Inserts one sample with its collectors; returns its id. */
  async insertOne(manager: EntityManager, columns: Partial<Sample>, collectorIds: number[]): Promise<number> {
    const result = await manager.insert(Sample, columns);
    const id = Number((result.identifiers[0] as { id: string | number }).id);
    await this.insertCollectors(manager, [{ sampleId: id, collectorIds }]);
    return id;
  }

  /**
   * Inserts many samples in one statement (the rows travel as one JSON parameter, keyed by column
   * name) and returns id by IGSN.
   */
  async insertMany(manager: EntityManager, records: SampleRecord[], columns: string[]): Promise<Map<string, number>> {
    if (!records.length) return new Map();
    const list = columns.map((column) => `"${column}"`).join(', ');
    const inserted = await manager.query<{ id: string; igsn: string }[]>(
      `INSERT INTO sample (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::sample, $1::jsonb)
       RETURNING id, igsn`,
      [JSON.stringify(records)],
    );
    return new Map(inserted.map((row) => [row.igsn, Number(row.id)]));
  }

  /** Collector lists of new samples, in order, in one statement. */
  async insertCollectors(manager: EntityManager, lists: { sampleId: number; collectorIds: number[] }[]): Promise<void> {
    const rows = lists.flatMap((list) =>
      list.collectorIds.map((collectorId, position) => ({ sampleId: list.sampleId, position, collectorId })),
    );
    if (rows.length) await manager.insert(SampleCollector, rows);
  }

  /** Sets columns of one sample; a collectors list, when given, replaces the stored one. */
  async update(manager: EntityManager, id: number, columns: Partial<Sample>, collectorIds?: number[]): Promise<void> {
    if (Object.keys(columns).length) await manager.update(Sample, { id }, columns);
    if (collectorIds !== undefined) {
      await manager.delete(SampleCollector, { sampleId: id });
      await this.insertCollectors(manager, [{ sampleId: id, collectorIds }]);
    }
  }

  /**
   * Applies a curation transition to the batch's samples that meet `condition` (the access
   * policy's, on alias `s`) and counts the rows changed, with their distinct store states after it.
   */
  async updateBatch(
    manager: EntityManager,
    batchId: number,
    condition: Sql,
    change: BatchSampleChange,
  ): Promise<{ count: number; states: string | null }> {
    const { set, fromState } = batchChangeSql(change);
    const { text, values } = sql`WITH changed AS (
         UPDATE sample s SET ${set}
          WHERE s.batch_id = ${batchId} AND ${condition}${fromState}
         RETURNING s.metadata_store_status AS state)
       SELECT count(*)::int AS count, string_agg(DISTINCT state, ', ' ORDER BY state) AS states FROM changed`.toQuery();
    const [row] = await manager.query<{ count: number; states: string | null }[]>(text, values);
    return row;
  }

  // ---------------------------------------------------------------- statistics

  /**
   * Refreshes the planner's statistics of the sample tables when enough rows changed since the
   * last ANALYZE (see analyzeStaleTables), and empties the pending lists of sample's GIN (trigram)
   * indexes (see cleanGinPendingLists). Called by the worker after a batch (TableStatisticsKeeper does
   * the same for every table each minute, which covers curation's bulk updates too); ANALYZE reads a fixed-size sample of rows, so it costs about the
   * same at 10,000 and 10,000,000 samples.
   */
  async refreshStatistics(reason: string): Promise<void> {
    const started = Date.now();
    try {
      const analysed = await analyzeStaleTables(this.dataSource, ['sample', 'sample_collector']);
      const pages = await cleanGinPendingLists(this.dataSource, ['sample']);
      if (analysed.length || pages) {
        this.logger.log(
          `Analysed ${analysed.join(', ') || 'nothing'}, moved ${pages} GIN pending pages (${reason}) in ${Date.now() - started} ms`,
        );
      }
    } catch (error) {
      // After the write committed: a failure here must not fail (or retry) it; the worker's keeper tries again.
      this.logger.warn(`Statistics refresh after ${reason} failed: ${(error as Error).message}`);
    }
  }
}
