import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Sql, and, bind, condition, empty, raw, sql } from '../../core/database/sql';
import { BatchHistory } from './batch-history.entity';

/** A batch with its job's status and the names its read shape shows. */
export interface BatchHistoryRow {
  id: number;
  batch_type: string;
  registry_code: string | null;
  sample_count: number | null;
  upload_time: Date;
  processed_time: Date | null;
  filename: string | null;
  object_type: string | null;
  save_as_draft: boolean;
  user_owner_id: number | null;
  team_owner_id: number | null;
  job_id: string | null;
  status: string | null;
  uploaded_by_name: string | null;
  owner_name: string | null;
  team_owner_name: string | null;
}

/** Which batches a read returns. */
export interface BatchHistoryFilter {
  /** Only batches this user owns, uploaded or whose team they belong to; undefined: all (staff). */
  viewerId?: number;
  status?: string;
  registryCode?: string;
}

/** An earlier upload of the same workbook. */
export interface EarlierUpload {
  id: number;
  filename: string | null;
  upload_time: Date;
}

const BATCH_SELECT = `
  SELECT b.id, b.batch_type, b.registry_code, b.sample_count, b.upload_time, b.processed_time, b.filename,
         b.object_type, b.save_as_draft, b.user_owner_id, b.team_owner_id, b.job_id, j.status,
         ui.label AS uploaded_by_name, oi.label AS owner_name, t.name AS team_owner_name
    FROM batch_history b
    LEFT JOIN background_job j ON j.id = b.job_id
    LEFT JOIN registry_user uu ON uu.id = b.uploaded_by_id
    LEFT JOIN individual ui ON ui.id = uu.individual_id
    LEFT JOIN registry_user ou ON ou.id = b.user_owner_id
    LEFT JOIN individual oi ON oi.id = ou.individual_id
    LEFT JOIN team t ON t.id = b.team_owner_id`;

const SELECT = raw(BATCH_SELECT);

/**
 * Every SQL statement of `batch_history`. Statements given a manager run in the caller's
 * transaction (an upload stores its batch with its file and job; registration records its outcome
 * with its samples; curation locks the batch for its transition).
 */
@Injectable()
export class BatchHistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The filter as a condition on alias `b` (and `j`, the job); `true` when it filters nothing. */
  private where(filter: BatchHistoryFilter): Sql {
    const me = bind(filter.viewerId);
    return condition(
      and(
        filter.viewerId === undefined
          ? empty
          : sql`(b.user_owner_id = ${me} OR b.uploaded_by_id = ${me} OR b.team_owner_id IN (SELECT team_id FROM team_member WHERE user_id = ${me}))`,
        filter.status !== undefined ? sql`j.status = ${filter.status}` : empty,
        filter.registryCode !== undefined ? sql`b.registry_code = ${filter.registryCode}` : empty,
      ),
    );
  }

  private run<T>(statement: Sql): Promise<T[]> {
    const { text, values } = statement.toQuery();
    return this.dataSource.query<T[]>(text, values);
  }

  /** A page of the filter's batches, newest upload first, and how many there are. */
  async page(
    filter: BatchHistoryFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: BatchHistoryRow[]; count: number }> {
    const where = this.where(filter);
    const [rows, counted] = await Promise.all([
      this.run<BatchHistoryRow>(
        sql`${SELECT} WHERE ${where} ORDER BY b.upload_time DESC, b.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
      ),
      this.run<{ count: string }>(
        sql`SELECT count(*) AS count FROM batch_history b LEFT JOIN background_job j ON j.id = b.job_id WHERE ${where}`,
      ),
    ]);
    return { rows, count: Number(counted[0].count) };
  }

  /** The batch, if the viewer may see it (see BatchHistoryFilter.viewerId). */
  async findVisible(id: number, viewerId: number | undefined): Promise<BatchHistoryRow | undefined> {
    const rows = await this.run<BatchHistoryRow>(sql`${SELECT} WHERE b.id = ${id} AND ${this.where({ viewerId })}`);
    return rows[0];
  }

  async findById(id: number): Promise<BatchHistory | null> {
    return this.dataSource.manager.findOneBy(BatchHistory, { id });
  }

  async fileId(id: number): Promise<string | null> {
    const [row]: { file_id: string | null }[] = await this.dataSource.query(
      'SELECT file_id FROM batch_history WHERE id = $1',
      [id],
    );
    return row.file_id;
  }

  async insert(manager: EntityManager, fields: Partial<BatchHistory>): Promise<BatchHistory> {
    return manager.save(manager.create(BatchHistory, fields));
  }

  async update(manager: EntityManager, id: number, fields: Partial<BatchHistory>): Promise<void> {
    await manager.update(BatchHistory, { id }, fields);
  }

  /** Locks the batch's row until the transaction ends. */
  async lock(manager: EntityManager, id: number): Promise<void> {
    await manager.query('SELECT id FROM batch_history WHERE id = $1 FOR UPDATE', [id]);
  }

  /**
   * The uploader's latest batch of this workbook that is queued, running or registered. Concurrent
   * uploads of one file by one user first take turns on an advisory lock (held until the
   * transaction ends), so both cannot find none.
   */
  async lockAndFindEarlierUpload(
    manager: EntityManager,
    userId: number,
    contentSha256: string,
  ): Promise<EarlierUpload | undefined> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `batch-upload:${userId}:${contentSha256}`,
    ]);
    const [earlier] = await manager.query<EarlierUpload[]>(
      `SELECT b.id, b.filename, b.upload_time
         FROM batch_history b JOIN background_job j ON j.id = b.job_id
        WHERE b.uploaded_by_id = $1 AND b.content_sha256 = $2 AND j.status IN ('pending', 'processing', 'completed')
        ORDER BY b.id DESC LIMIT 1`,
      [userId, contentSha256],
    );
    return earlier;
  }
}
