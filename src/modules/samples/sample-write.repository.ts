import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import {
  analyzeStaleTables,
  cleanGinPendingLists,
  reportStatisticsAtCommit,
} from '../../core/database/table-statistics';
import { StatementNames, managedQuery } from '../../core/database/prepared-query';
import { Sql, bind, empty, sql } from '../../core/database/sql';
import { BASE36_DIGITS, namespaceCapacity } from './igsn.service';
import { Sample, SampleCollector } from './sample.entity';

/** Sample columns (database names) an INSERT of many rows may set, as one JSON record each. */
export type SampleRecord = Record<string, unknown>;

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const driver = error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : {};
  return driver.code === '23505' && driver.constraint === constraint;
}

/** A foreign key violation: a row the statement refers to is gone (removed since it was looked up). */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23503';
}

/**
 * A curation transition of a batch's samples (SampleWriteRepository.updateBatch): to review (drafts
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

/**
 * insertOne's texts (one per set of columns a registration sets, minting or not), prepared when the
 * registration runs outside a transaction (its common path): planning the insert cost a third of
 * its execution. Clients send few shapes; past this many, new ones run unnamed.
 */
const INSERT_ONE_STATEMENTS = new StatementNames('sample_insert', 64);

/**
 * Every SQL statement that writes `sample` and `sample_collector`, and the reads a write makes
 * under its own transaction (locks, IGSNs taken, minting counters, parent-link checks): sample
 * writes (JSON, batch, legacy XML), reservations, curation and transfers come through here.
 */
@Injectable()
export class SampleWriteRepository {
  private readonly logger = new Logger(SampleWriteRepository.name);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async igsnExists(manager: EntityManager, suffix: string): Promise<boolean> {
    return manager.existsBy(Sample, { igsn: suffix });
  }

  /**
   * The IGSN of the active sample of `ownerId` that carries each of `externalIds` (the rows of
   * uq_sample_owner_external_id), other than sample `exceptId`, by external id; one statement.
   */
  async igsnsByExternalIds(
    manager: EntityManager,
    ownerId: number,
    externalIds: string[],
    exceptId?: number,
  ): Promise<Map<string, string>> {
    if (!externalIds.length) return new Map();
    const rows: { externalId: string; igsn: string }[] = await manager.query(
      `SELECT DISTINCT ON (external_sample_id) external_sample_id AS "externalId", igsn FROM sample
        WHERE user_owner_id = $1 AND external_sample_id = ANY($2::text[]) AND NOT is_deactivated AND id <> $3
        ORDER BY external_sample_id, id`,
      [ownerId, externalIds, exceptId ?? 0],
    );
    return new Map(rows.map((row) => [row.externalId, row.igsn]));
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

  /**
   * Inserts one sample (`record`: its columns by database name) with its collectors, in order, in
   * one statement; returns its id, or no id when its IGSN is taken — then nothing is inserted, and
   * the transaction goes on (no savepoint needed to try another IGSN). Any other violation (an
   * external id) is raised as usual. With `mintUnder` (a registry code whose namespace holds no
   * other code's) the statement mints the IGSN itself from the code's sequence, and returns the
   * `counter` value it took: nothing is inserted either when that value lies past the namespace.
   */
  async insertOne(
    manager: EntityManager,
    record: SampleRecord,
    collectorIds: number[],
    mintUnder?: string,
  ): Promise<{ id?: number; counter?: number }> {
    const columns = Object.keys(record).map((column) => `"${column}"`);
    const fromRecord = columns.map((column) => `r.${column}`);
    // Minting: the counter in base 36, zero-padded to the namespace's width (formatMintedSuffix).
    // The digits' positions are a constant series filtered by the width, not a series up to it: a
    // prepared statement keeps a generic plan only when it is estimated no dearer than the custom ones,
    // and a series with a known end is estimated to the row while one with a parameter is not.
    const mint = mintUnder
      ? {
          ctes: `counter AS (SELECT nextval(igsn_sequence_name($3::text)::regclass) AS value),
                 minted AS (
                   SELECT c.value, $3::text || string_agg(
                            substr('${BASE36_DIGITS}', (c.value / power(36, k)::bigint % 36)::int + 1, 1), ''
                            ORDER BY k DESC) AS igsn
                     FROM counter c, generate_series(0, 8) k
                    WHERE k < $4::int
                    GROUP BY c.value),`,
          join: 'JOIN minted m ON m.value <= $5::bigint',
          counter: '(SELECT value FROM counter)',
          values: [mintUnder, 9 - mintUnder.length, namespaceCapacity(mintUnder)],
        }
      : { ctes: '', join: '', counter: 'NULL::bigint', values: [] };
    const rows = await managedQuery<{ id: string | null; counter: string | null }>(
      manager,
      `WITH ${mint.ctes} inserted AS (
         INSERT INTO sample (${[...columns, ...(mintUnder ? ['"igsn"'] : [])].join(', ')})
         SELECT ${[...fromRecord, ...(mintUnder ? ['m.igsn'] : [])].join(', ')}
           FROM jsonb_populate_record(NULL::sample, $1::jsonb) r ${mint.join}
         ON CONFLICT (igsn) DO NOTHING
         RETURNING id
       ), collectors AS (
         INSERT INTO sample_collector (sample_id, position, collector_id)
         SELECT inserted.id, c.position - 1, c.collector_id
           FROM inserted, unnest($2::int[]) WITH ORDINALITY AS c(collector_id, position)
       )
       SELECT (SELECT id FROM inserted) AS id, ${mint.counter} AS counter`,
      [JSON.stringify(record), collectorIds, ...mint.values],
      INSERT_ONE_STATEMENTS,
    );
    const [row] = rows;
    return {
      id: row.id === null ? undefined : Number(row.id),
      counter: row.counter === null ? undefined : Number(row.counter),
    };
  }

  /**
   * Inserts many samples in one statement (the rows travel as one JSON parameter, keyed by column
   * name; a column a row lacks is stored as NULL, not its default; a column in `constants` is
   * stored with that value in every row) and returns id by IGSN. A row whose IGSN is taken is
   * skipped, not raised (it is missing from the answer); any other violation is raised.
   */
  async insertMany(
    manager: EntityManager,
    records: SampleRecord[],
    columns: string[],
    constants: SampleRecord = {},
  ): Promise<Map<string, number>> {
    if (!records.length) return new Map();
    const list = columns.map((column) => `"${column}"`).join(', ');
    const values = columns.map((column) => `${column in constants ? 'c' : 'r'}."${column}"`).join(', ');
    const inserted = await manager.query<{ id: string; igsn: string }[]>(
      `INSERT INTO sample (${list})
       SELECT ${values}
         FROM jsonb_populate_recordset(NULL::sample, $1::jsonb) r,
              jsonb_populate_record(NULL::sample, $2::jsonb) c
       ON CONFLICT (igsn) DO NOTHING
       RETURNING id, igsn`,
      [JSON.stringify(records), JSON.stringify(constants)],
    );
    return new Map(inserted.map((row) => [row.igsn, Number(row.id)]));
  }

  /**
   * Collector lists of new samples, in order, in one statement: three parallel arrays (a batch
   * inserts thousands of rows at once; the query builder's parameter per value cost more than the insert).
   */
  async insertCollectors(manager: EntityManager, lists: { sampleId: number; collectorIds: number[] }[]): Promise<void> {
    const sampleIds: number[] = [];
    const positions: number[] = [];
    const collectorIds: number[] = [];
    for (const list of lists) {
      list.collectorIds.forEach((collectorId, position) => {
        sampleIds.push(list.sampleId);
        positions.push(position);
        collectorIds.push(collectorId);
      });
    }
    if (!sampleIds.length) return;
    await manager.query(
      `INSERT INTO sample_collector (sample_id, position, collector_id)
       SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::int[])`,
      [sampleIds, positions, collectorIds],
    );
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

  /** This transaction's row counts reach the statistics at commit: the refresh after a batch must see them. */
  async reportStatisticsAtCommit(manager: EntityManager): Promise<void> {
    await reportStatisticsAtCommit(manager);
  }

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
