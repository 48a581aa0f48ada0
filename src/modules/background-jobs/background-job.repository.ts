import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { BackgroundJob } from './background-job.entity';

/** What a running attempt reads to decide whether it must stop. */
export interface JobRunState {
  cancel_requested: boolean;
  attempts: number;
  status: string;
}

/**
 * Every SQL statement of `background_job`. Conditional UPDATEs report whether they changed the row,
 * so the service decides what a lost race means; statements given a manager run in the caller's
 * transaction (a job created with its batch, completed with its results).
 */
@Injectable()
export class BackgroundJobRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, fields: Partial<BackgroundJob>): Promise<BackgroundJob> {
    const job = manager.create(BackgroundJob, fields);
    await manager.save(BackgroundJob, job);
    return job;
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager): Promise<BackgroundJob | null> {
    return manager.findOneBy(BackgroundJob, { id });
  }

  async findByIdempotencyKey(userId: number, key: string): Promise<BackgroundJob | null> {
    return this.dataSource.manager.findOneBy(BackgroundJob, { userId, idempotencyKey: key });
  }

  /** Replaces the job's payload (a batch adds its id once the batch row exists). */
  async setPayload(manager: EntityManager, id: string, payload: Record<string, unknown>): Promise<void> {
    await manager.query('UPDATE background_job SET payload = $2 WHERE id = $1', [id, payload]);
  }

  /** The user's pending or running exports. */
  async countOpenExports(manager: EntityManager, userId: number): Promise<number> {
    const [{ open }]: { open: number }[] = await manager.query(
      `SELECT count(*)::int AS open FROM background_job
        WHERE user_id = $1 AND job_type = 'sample_export' AND status IN ('pending', 'processing')`,
      [userId],
    );
    return open;
  }

  /** pending/processing → failed and cancel_requested; false when the job was in neither state. */
  async cancel(id: string, message: string, now: Date): Promise<boolean> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE background_job SET status = 'failed', cancel_requested = true, error_message = $2, finished_at = $3
        WHERE id = $1 AND status IN ('pending', 'processing')`,
      [id, message, now],
    );
    return result[1] === 1;
  }

  /** Claims the job for a new attempt; false when it is finished, cancelled or gone. */
  async claim(id: string, now: Date): Promise<boolean> {
    const rows: [BackgroundJob[], number] = await this.dataSource.query(
      `UPDATE background_job
          SET status = 'processing', started_at = COALESCE(started_at, $2), attempts = attempts + 1,
              processed_count = 0
        WHERE id = $1 AND status IN ('pending', 'processing') AND NOT cancel_requested
        RETURNING id`,
      [id, now],
    );
    return rows[1] === 1;
  }

  async setProgress(id: string, processed: number, total: number | null): Promise<void> {
    await this.dataSource.query(
      `UPDATE background_job SET processed_count = $2, total_count = COALESCE($3, total_count)
        WHERE id = $1 AND status = 'processing'`,
      [id, processed, total],
    );
  }

  async runState(id: string): Promise<JobRunState | undefined> {
    const rows: JobRunState[] = await this.dataSource.query(
      'SELECT cancel_requested, attempts, status FROM background_job WHERE id = $1',
      [id],
    );
    return rows[0];
  }

  /** processing → completed, only under `attempt` and when not cancelled; false otherwise. */
  async complete(
    manager: EntityManager,
    id: string,
    attempt: number,
    outcome: { result: Record<string, unknown>; processedCount: number; resultFileId: string | null; finishedAt: Date },
  ): Promise<boolean> {
    const rows: [unknown[], number] = await manager.query(
      `UPDATE background_job
          SET status = 'completed', result = $2, processed_count = $3, total_count = COALESCE(total_count, $3),
              result_file_id = COALESCE($4, result_file_id), finished_at = $5, error_message = NULL
        WHERE id = $1 AND status = 'processing' AND NOT cancel_requested AND attempts = $6`,
      [id, outcome.result, outcome.processedCount, outcome.resultFileId, outcome.finishedAt, attempt],
    );
    return rows[1] === 1;
  }

  /** pending/processing → failed with this message (and maybe a result and a report). */
  async fail(
    id: string,
    message: string,
    extra: { result: Record<string, unknown> | null; resultFileId: string | null; finishedAt: Date },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE background_job
          SET status = 'failed', error_message = $2, result = COALESCE($3, result),
              result_file_id = COALESCE($4, result_file_id), finished_at = $5
        WHERE id = $1 AND status IN ('pending', 'processing')`,
      [id, message, extra.result, extra.resultFileId, extra.finishedAt],
    );
  }

  /** Jobs still open that were created before `olderThan`, oldest first (at most 500). */
  async open(olderThan: Date): Promise<BackgroundJob[]> {
    return this.dataSource
      .getRepository(BackgroundJob)
      .createQueryBuilder('job')
      .where("job.status IN ('pending', 'processing') AND job.created_at < :olderThan", { olderThan })
      .orderBy('job.created_at', 'ASC')
      .limit(500)
      .getMany();
  }
}
