import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { pooledQuery } from '../../../core/database/prepared-query';
import { SampleAccessFacts } from '../sample-access.policy';
import { StoreStatus } from '../sample.entity';

/** One sample met walking parents or children: what a lineage node shows, and what decides who sees it. */
export interface LineageRow {
  id: string;
  /** The sample it hangs under in the walk (children: its parent; ancestors: the child it was reached from). */
  viaId: string;
  depth: number;
  igsn: string;
  name: string;
  objectType: string | null;
  facts: SampleAccessFacts;
}

interface Row {
  id: string;
  via_id: string;
  depth: number;
  igsn: string;
  name: string;
  object_type: string | null;
  metadata_store_status: StoreStatus;
  publish_date: Date | null;
  is_deactivated: boolean;
  user_owner_id: number | null;
  team_owner_id: number | null;
}

const NODE_COLUMNS = `w.id, w.via_id, w.depth, s.igsn, s.name, ot.label AS object_type, s.metadata_store_status,
  s.publish_date, s.is_deactivated, s.user_owner_id, s.team_owner_id`;

const toLineageRow = (row: Row): LineageRow => ({
  id: String(row.id),
  viaId: String(row.via_id),
  depth: row.depth,
  igsn: row.igsn,
  name: row.name,
  objectType: row.object_type,
  facts: {
    metadataStoreStatus: row.metadata_store_status,
    publishDate: row.publish_date,
    isDeactivated: row.is_deactivated,
    userOwnerId: row.user_owner_id,
    teamOwnerId: row.team_owner_id,
  },
});

/**
 * The parent and child walks of GET /api/samples/{igsn}/lineage/, whatever the caller may see (the
 * access policy decides per node afterwards). Both walks are breadth first and stop at `maxDepth`
 * levels and `maxNodes` rows: PostgreSQL evaluates a recursive query only as far as the LIMIT of
 * the query reading it needs, so a sample with a million children costs `maxNodes` rows, not a
 * million. Parents never form a cycle (SampleRepository.parentLinkProblems), and the depth bounds
 * a walk even if one were stored.
 */
@Injectable()
export class SampleLineageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The parent, its parent, …: at most `maxDepth` of them, nearest first. */
  async ancestors(id: string, maxDepth: number): Promise<LineageRow[]> {
    const rows = await pooledQuery<Row>(
      this.dataSource,
      `WITH RECURSIVE walk(id, via_id, depth) AS (
         SELECT s.parent_sample_id, s.id, 1 FROM sample s WHERE s.id = $1 AND s.parent_sample_id IS NOT NULL
         UNION ALL
         SELECT s.parent_sample_id, s.id, w.depth + 1 FROM walk w JOIN sample s ON s.id = w.id
          WHERE s.parent_sample_id IS NOT NULL AND w.depth < $2
       )
       SELECT ${NODE_COLUMNS} FROM walk w JOIN sample s ON s.id = w.id
         LEFT JOIN object_type ot ON ot.id = s.object_type_id
        ORDER BY w.depth`,
      [id, maxDepth],
      'sample_lineage_ancestors',
    );
    return rows.map(toLineageRow);
  }

  /** Children, grandchildren, …: at most `maxDepth` levels and `maxNodes` samples, level by level. */
  async descendants(id: string, maxDepth: number, maxNodes: number): Promise<LineageRow[]> {
    const rows = await pooledQuery<Row>(
      this.dataSource,
      `WITH RECURSIVE walk(id, via_id, depth) AS (
         SELECT s.id, s.parent_sample_id, 1 FROM sample s WHERE s.parent_sample_id = $1
         UNION ALL
         SELECT s.id, s.parent_sample_id, w.depth + 1 FROM walk w JOIN sample s ON s.parent_sample_id = w.id
          WHERE w.depth < $2
       ), bounded AS MATERIALIZED (SELECT * FROM walk LIMIT $3)
       SELECT ${NODE_COLUMNS} FROM bounded w JOIN sample s ON s.id = w.id
         LEFT JOIN object_type ot ON ot.id = s.object_type_id
        ORDER BY w.depth, w.id`,
      [id, maxDepth, maxNodes],
      'sample_lineage_descendants',
    );
    return rows.map(toLineageRow);
  }
}
