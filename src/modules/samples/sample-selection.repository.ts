import { Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import { EntityManager } from 'typeorm';
import { pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { Sql, empty, sql } from '../../core/database/sql';
import { SampleRow } from './sample.mapper';
import { SampleRepository } from './sample.repository';

/** Where a keyset page starts: after this (created_at, id), newest first. */
export interface SampleCursor {
  /** created_at as PostgreSQL prints it (a JS Date would lose the microseconds). */
  createdAt: string;
  id: string;
}

/**
 * The reads of a selection of samples that the worker turns into a file — exports and label
 * sheets: `condition` is a search's (SampleSearchService.searchCondition) or a batch's, on alias
 * `s`. The file's count and pages are read in one snapshot.
 */
@Injectable()
export class SampleSelectionRepository {
  constructor(
    private readonly routing: ReadRouting,
    private readonly sampleRepository: SampleRepository,
  ) {}

  private pooled<T extends QueryResultRow>(statement: Sql): Promise<T[]> {
    const { text, values } = statement.toQuery();
    return this.routing.read((source) => pooledQuery<T>(source, text, values));
  }

  /** How many samples match, counting at most `limit` + 1 (so `limit` + 1 means "more than limit"). */
  async countUpTo(condition: Sql, limit: number): Promise<number> {
    const [row] = await this.pooled<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM sample s WHERE ${condition} LIMIT ${limit + 1}) v`,
    );
    return row.n;
  }

  /**
   * A keyset page for exports, inside the caller's (snapshot) transaction: `limit` rows after the
   * cursor, each walked on an index range however deep the export goes.
   */
  async keysetPage(
    manager: EntityManager,
    condition: Sql,
    after: SampleCursor | undefined,
    limit: number,
  ): Promise<{ rows: SampleRow[]; cursor?: SampleCursor }> {
    const keyset = after
      ? sql` AND (s.created_at, s.id) < (${after.createdAt}::timestamptz, ${after.id}::bigint)`
      : empty;
    const { text, values } =
      sql`SELECT s.id, s.created_at::text AS created_at FROM sample s WHERE (${condition})${keyset}
        ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}`.toQuery();
    const ids = await manager.query<{ id: string; created_at: string }[]>(text, values);
    if (!ids.length) return { rows: [] };
    const last = ids[ids.length - 1];
    return {
      rows: await this.sampleRepository.byIds(
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
    condition: Sql,
  ): Promise<{ count: number; codes: number; code: string | null }> {
    const { text, values } =
      sql`SELECT count(*)::int AS count, count(DISTINCT s.registry_code)::int AS codes, min(s.registry_code) AS code
         FROM sample s WHERE ${condition}`.toQuery();
    const [facts] = await manager.query<{ count: number; codes: number; code: string | null }[]>(text, values);
    return facts;
  }
}
