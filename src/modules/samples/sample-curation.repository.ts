import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Sql, join, raw, sql } from '../../core/database/sql';
import { FLAT_SAMPLE_JOINS, FlatColumnSql } from './sample-flat-columns';

const FLAT_JOINS = raw(FLAT_SAMPLE_JOINS);

/**
 * The statements batch curation reads samples with: the curation view's aggregate and pages (flat
 * columns), and the checks of a transition. `condition` is the access policy's condition on alias
 * `s` (visible or editable); the batch is always named apart.
 */
@Injectable()
export class SampleCurationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** IGSNs and names of the batch's samples among `suffixes` that match `condition`. */
  async namesInBatch(
    manager: EntityManager,
    batchId: number,
    suffixes: string[],
    condition: Sql,
  ): Promise<{ igsn: string; name: string }[]> {
    const { text, values } = sql`SELECT s.igsn, s.name FROM sample s
      WHERE s.batch_id = ${batchId} AND s.igsn = ANY(${suffixes}::text[]) AND ${condition}`.toQuery();
    return manager.query(text, values);
  }

  /** The batch's drafts matching `condition` that lack coordinates (first `limit`, with the total). */
  async draftsWithoutCoordinates(
    manager: EntityManager,
    batchId: number,
    condition: Sql,
    limit: number,
  ): Promise<{ igsn: string; latitude: number | null; longitude: number | null; total: number }[]> {
    const { text, values } = sql`SELECT s.igsn, s.latitude, s.longitude, count(*) OVER ()::int AS total
         FROM sample s
        WHERE s.batch_id = ${batchId} AND s.metadata_store_status = 'draft' AND ${condition}
          AND (s.latitude IS NULL OR s.longitude IS NULL)
        ORDER BY s.id
        LIMIT ${raw(String(Number(limit)))}`.toQuery();
    return manager.query(text, values);
  }

  /**
   * One pass over the batch's samples matching `condition`: totals per store status and, per flat
   * column `i`, its smallest value `v<i>`, whether every sample has that one value `s<i>`, whether any has one `a<i>`.
   */
  async flatAggregate<T>(batchId: number, condition: Sql, columns: FlatColumnSql[]): Promise<T> {
    const perColumn = columns.map((column, index) => {
      // Bytewise comparison: exact equality, and cheaper than the database collation.
      const value = column.format === 'text' || column.format === 'igsn' ? `(${column.sql}) COLLATE "C"` : column.sql;
      return raw(`min(${value}) AS v${index},
              (count(${value}) = count(*) AND min(${value}) = max(${value})) AS s${index},
              count(${value}) > 0 AS a${index}`);
    });
    const { text, values } = sql`SELECT count(*)::int AS total,
              count(*) FILTER (WHERE s.metadata_store_status = 'draft')::int AS draft,
              count(*) FILTER (WHERE s.metadata_store_status = 'pending-review')::int AS pending_review,
              count(*) FILTER (WHERE s.metadata_store_status = 'published')::int AS published,
              ${join(perColumn, ',\n')}
         FROM sample s
         ${FLAT_JOINS}
        WHERE s.batch_id = ${batchId} AND ${condition}`.toQuery();
    // Unplanned JIT would cost seconds here (~200 aggregates past jit_above_cost from ~7,500
    // samples); every pooled connection runs with jit off (data-source-options).
    const [row] = await this.dataSource.query<T[]>(text, values);
    return row;
  }

  /**
   * A page of the batch's samples matching `condition` in registration order: `sample_igsn`,
   * `sample_name`, then `c<i>` per column.
   */
  async flatPage(
    batchId: number,
    condition: Sql,
    columns: FlatColumnSql[],
    page: { limit: number; offset: number },
  ): Promise<Record<string, unknown>[]> {
    const columnValues = raw(columns.map((column, index) => `, ${column.sql} AS c${index}`).join(''));
    const { text, values } = sql`SELECT s.id, s.igsn AS sample_igsn, s.name AS sample_name${columnValues}
         FROM (SELECT s.id FROM sample s WHERE s.batch_id = ${batchId} AND ${condition}
                ORDER BY s.id LIMIT ${page.limit} OFFSET ${page.offset}) picked
         JOIN sample s ON s.id = picked.id
         ${FLAT_JOINS}
        ORDER BY s.id`.toQuery();
    return this.dataSource.query<Record<string, unknown>[]>(text, values);
  }
}
