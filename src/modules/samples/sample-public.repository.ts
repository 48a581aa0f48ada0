import { Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import { pooledQuery } from '../../core/database/prepared-query';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { Sql, bind, sql } from '../../core/database/sql';

export interface PublicChild {
  parentId: string;
  igsn: string;
  name: string;
}

export interface SitemapEntry {
  igsn: string;
  updatedAt: Date;
}

/**
 * The statements of the public pages: landing pages, the sitemap, DataCite and OAI-PMH relations.
 * `visible` is the access policy's condition on alias `s` (SampleAccessPolicy.publicCondition or
 * harvestableCondition). Public reads: a standby may answer them (ReadRouting decides).
 */
@Injectable()
export class SamplePublicRepository {
  constructor(private readonly routing: ReadRouting) {}

  private pooled<T extends QueryResultRow>(statement: Sql): Promise<T[]> {
    const { text, values } = statement.toQuery();
    return this.routing.read((source) => pooledQuery<T>(source, text, values));
  }

  /** Whether the sample of this id meets `condition` (on alias `s`). */
  async meets(id: number | string, condition: Sql): Promise<boolean> {
    const rows = await this.pooled<{ found: boolean }>(
      sql`SELECT EXISTS (SELECT 1 FROM sample s WHERE s.id = ${String(id)} AND ${condition}) AS found`,
    );
    return rows[0]?.found === true;
  }

  /** Visible children of the given samples, by parent, oldest first (at most `limit` per parent). */
  async childrenOf(parentIds: readonly (number | string)[], visible: Sql, limit = 1000): Promise<PublicChild[]> {
    if (!parentIds.length) return [];
    const rows = await this.pooled<{ parent_id: string; igsn: string; name: string }>(
      sql`SELECT p.id AS parent_id, c.igsn, c.name
         FROM unnest(${parentIds.map(String)}::bigint[]) AS p(id)
         CROSS JOIN LATERAL (
           SELECT s.igsn, s.name FROM sample s
            WHERE s.parent_sample_id = p.id AND ${visible}
            ORDER BY s.id LIMIT ${limit}
         ) c`,
    );
    return rows.map((row) => ({ parentId: String(row.parent_id), igsn: row.igsn, name: row.name }));
  }

  /** True when more than `limit` samples are visible: counts at most limit + 1 index entries. */
  async moreThan(limit: number, visible: Sql): Promise<boolean> {
    const [row] = await this.pooled<{ n: string }>(
      sql`SELECT count(*) AS n FROM (SELECT 1 FROM sample s WHERE ${visible} LIMIT ${limit + 1}) v`,
    );
    return Number(row.n) > limit;
  }

  /**
   * The id ranges `[k * size, (k + 1) * size)` holding at least one visible sample, found by
   * skipping through the id index (one probe per range) rather than reading every row.
   */
  async nonEmptyIdRanges(size: number, visible: Sql): Promise<number[]> {
    const step = sql`${size}::bigint`;
    const rows = await this.pooled<{ k: string }>(
      sql`WITH RECURSIVE ranges(k) AS (
         SELECT (SELECT s.id FROM sample s WHERE ${visible} ORDER BY s.id LIMIT 1) / ${step}
         UNION ALL
         SELECT (SELECT s.id FROM sample s WHERE ${visible} AND s.id >= (r.k + 1) * ${step}
                  ORDER BY s.id LIMIT 1) / ${step}
           FROM ranges r WHERE r.k IS NOT NULL
       )
       SELECT k FROM ranges WHERE k IS NOT NULL`,
    );
    return rows.map((row) => Number(row.k));
  }

  /** Visible samples with ids in `[from, to)` (to the end when `to` is null), in id order. */
  async idRange(from: number, to: number | null, visible: Sql): Promise<SitemapEntry[]> {
    const end = bind(to);
    const rows = await this.pooled<{ igsn: string; updated_at: Date }>(
      sql`SELECT s.igsn, s.updated_at FROM sample s
        WHERE ${visible} AND s.id >= ${from} AND (${end}::bigint IS NULL OR s.id < ${end})
        ORDER BY s.id`,
    );
    return rows.map((row) => ({ igsn: row.igsn, updatedAt: row.updated_at }));
  }
}
