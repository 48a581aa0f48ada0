import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { BatchFeedback, SampleFeedbackEntry } from './batch-feedback.entity';
import { CurationEvent } from './curation-event.entity';

export interface FeedbackRow {
  id: number;
  author_id: number | null;
  author_name: string | null;
  general_feedback: string;
  sample_feedback: SampleFeedbackEntry[];
  created_at: Date;
}

export interface EventRow {
  id: string;
  action: string;
  actor_id: number | null;
  actor_name: string | null;
  from_state: string | null;
  to_state: string | null;
  affected_count: number;
  reason: string | null;
  comment: string | null;
  created_at: Date;
}

/**
 * Every SQL statement of a batch's curation record: `batch_feedback` and `curation_event`. Writes
 * run in the transition's transaction (the caller's manager).
 */
@Injectable()
export class CurationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertEvent(manager: EntityManager, event: Partial<CurationEvent>): Promise<void> {
    await manager.insert(CurationEvent, event);
  }

  async insertFeedback(manager: EntityManager, feedback: Partial<BatchFeedback>): Promise<BatchFeedback> {
    return manager.save(manager.create(BatchFeedback, feedback));
  }

  /** The batch's latest `limit` feedback entries with their authors' names, newest first. */
  async recentFeedback(batchId: number, limit: number): Promise<FeedbackRow[]> {
    return this.dataSource.query<FeedbackRow[]>(
      `SELECT f.id, f.author_id, ai.label AS author_name, f.general_feedback, f.sample_feedback, f.created_at
         FROM batch_feedback f
         LEFT JOIN registry_user au ON au.id = f.author_id
         LEFT JOIN individual ai ON ai.id = au.individual_id
        WHERE f.batch_id = $1
        ORDER BY f.created_at DESC, f.id DESC
        LIMIT ${Number(limit)}`,
      [batchId],
    );
  }

  /** A page of the batch's audit trail with the actors' names, newest first, and its length. */
  async eventPage(
    batchId: number,
    page: { limit: number; offset: number },
  ): Promise<{ rows: EventRow[]; count: number }> {
    const [rows, counted] = await Promise.all([
      this.dataSource.query<EventRow[]>(
        `SELECT e.id, e.action, e.actor_id, ai.label AS actor_name, e.from_state, e.to_state, e.affected_count,
                e.reason, e.comment, e.created_at
           FROM curation_event e
           LEFT JOIN registry_user au ON au.id = e.actor_id
           LEFT JOIN individual ai ON ai.id = au.individual_id
          WHERE e.batch_id = $1
          ORDER BY e.created_at DESC, e.id DESC
          LIMIT $2 OFFSET $3`,
        [batchId, page.limit, page.offset],
      ),
      this.dataSource.query<{ count: number }[]>(
        'SELECT count(*)::int AS count FROM curation_event WHERE batch_id = $1',
        [batchId],
      ),
    ]);
    return { rows, count: counted[0].count };
  }
}
