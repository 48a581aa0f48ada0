import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The public catalogue condition on alias `s`, as SampleAccessPolicy.publicCondition decides it ($1 = now). */
const PUBLIC = `s.metadata_store_status = 'published' AND NOT s.is_deactivated
                AND (s.publish_date IS NULL OR s.publish_date <= $1)`;

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
 * What the public side of the registry reads about samples beyond one sample's JSON: the public
 * children of samples (landing pages, DataCite `HasPart`) and the sitemap's pages. Every query
 * walks an index on `sample` (parent, or `idx_sample_sitemap`) and never counts the whole table.
 */
@Injectable()
export class SamplePublicationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Public children of the given samples, by parent, oldest first (at most `limit` per parent). */
  async publicChildren(parentIds: readonly (number | string)[], now: Date, limit = 1000): Promise<PublicChild[]> {
    if (!parentIds.length) return [];
    const rows: { parent_id: string; igsn: string; name: string }[] = await this.dataSource.query(
      `SELECT p.id AS parent_id, c.igsn, c.name
         FROM unnest($2::bigint[]) AS p(id)
         CROSS JOIN LATERAL (
           SELECT s.igsn, s.name FROM sample s
            WHERE s.parent_sample_id = p.id AND ${PUBLIC}
            ORDER BY s.id LIMIT $3
         ) c`,
      [now, parentIds.map(String), limit],
    );
    return rows.map((row) => ({ parentId: String(row.parent_id), igsn: row.igsn, name: row.name }));
  }

  /** True when there are more than `limit` public samples: counts at most limit + 1 index entries. */
  async morePublicThan(limit: number, now: Date): Promise<boolean> {
    const [row]: { n: string }[] = await this.dataSource.query(
      `SELECT count(*) AS n FROM (SELECT 1 FROM sample s WHERE ${PUBLIC} LIMIT $2) public_sample`,
      [now, limit + 1],
    );
    return Number(row.n) > limit;
  }

  /**
   * The id ranges `[k * size, (k + 1) * size)` that hold at least one public sample, found by
   * skipping through the index (one probe per range) rather than reading every row.
   */
  async nonEmptyIdRanges(size: number, now: Date): Promise<number[]> {
    const rows: { k: string }[] = await this.dataSource.query(
      `WITH RECURSIVE ranges(k) AS (
         SELECT (SELECT s.id FROM sample s WHERE ${PUBLIC} ORDER BY s.id LIMIT 1) / $2
         UNION ALL
         SELECT (SELECT s.id FROM sample s WHERE ${PUBLIC} AND s.id >= (r.k + 1) * $2 ORDER BY s.id LIMIT 1) / $2
           FROM ranges r WHERE r.k IS NOT NULL
       )
       SELECT k FROM ranges WHERE k IS NOT NULL`,
      [now, size],
    );
    return rows.map((row) => Number(row.k));
  }

  /** Public samples with ids in `[from, to)` (all of them when `to` is null), in id order. */
  async publicInIdRange(from: number, to: number | null, now: Date): Promise<SitemapEntry[]> {
    const rows: { igsn: string; updated_at: Date }[] = await this.dataSource.query(
      `SELECT s.igsn, s.updated_at FROM sample s
        WHERE ${PUBLIC} AND s.id >= $2 AND ($3::bigint IS NULL OR s.id < $3)
        ORDER BY s.id`,
      [now, from, to],
    );
    return rows.map((row) => ({ igsn: row.igsn, updatedAt: row.updated_at }));
  }
}
