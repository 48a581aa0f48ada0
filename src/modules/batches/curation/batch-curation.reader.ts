import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Clock } from '../../../core/clock';
import { PageRequest, Paginated, paginate } from '../../../core/http/pagination';
import { IgsnService } from '../../samples/igsn.service';
import { SampleAccessPolicy, SqlCondition } from '../../samples/sample-access.policy';
import { BatchesService } from '../batches.service';
import { SampleFeedbackEntry } from './batch-feedback.entity';
import { SampleRepository } from '../../samples/sample.repository';
import { CurationColumn, curationColumns, formatCurationValue } from './curation-fields';
import { BatchFeedbackDto, CurationDetail, CurationEventDto } from './dto/curation.dto';

/** Feedback entries the curation detail carries (newest first). */
export const DETAIL_FEEDBACK_LIMIT = 20;

interface FeedbackRow {
  id: number;
  author_id: number | null;
  author_name: string | null;
  general_feedback: string;
  sample_feedback: SampleFeedbackEntry[];
  created_at: Date;
}

interface EventRow {
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

type AggregateRow = Record<string, unknown> & {
  total: number;
  draft: number;
  pending_review: number;
  published: number;
};

/**
 * The curation view of a batch. Which fields are shared and which differ is decided in one
 * aggregate statement over the batch's samples (per column: how many have a value, and whether the
 * smallest equals the largest); only then is the requested page of samples read, with only the
 * differing columns. Samples are those the caller may see (SampleAccessPolicy): deactivated
 * samples are gone from the view as they are from fetch.
 */
@Injectable()
export class BatchCurationReader {
  private readonly columns: CurationColumn[] = curationColumns();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly batches: BatchesService,
    private readonly policy: SampleAccessPolicy,
    private readonly igsn: IgsnService,
    private readonly samples: SampleRepository,
    private readonly clock: Clock,
  ) {}

  private async samplesOfBatch(batchId: number, user: AuthenticatedUser): Promise<SqlCondition> {
    const caller = await this.policy.caller(user);
    const visible = this.policy.visibleCondition('s', caller, this.clock.now(), 1);
    return { sql: `s.batch_id = $1 AND ${visible.sql}`, params: [batchId, ...visible.params] };
  }

  async detail(req: Request, idValue: string, user: AuthenticatedUser, page: PageRequest): Promise<CurationDetail> {
    const batch = await this.batches.requireVisible(idValue, user);
    const where = await this.samplesOfBatch(batch.id, user);
    const [aggregate, feedback] = await Promise.all([this.aggregate(where), this.recentFeedback(batch.id)]);

    const shared: CurationDetail['shared_fields'] = [];
    const differing: CurationColumn[] = [];
    this.columns.forEach((column, index) => {
      if (aggregate[`s${index}`] === true) {
        const value = formatCurationValue(aggregate[`v${index}`], column.format, (suffix) => this.igsn.toDoi(suffix));
        shared.push({ key: column.key, label: column.label, value: value ?? '' });
      } else if (aggregate[`a${index}`] === true) {
        differing.push(column);
      }
    });

    const total = aggregate.total;
    const samples = total > page.offset ? await this.page(where, differing, page) : [];
    const { data: _data, count: _count, ...pagination } = paginate(req, page, total, samples);
    return {
      batch,
      shared_fields: shared,
      columns: differing.map(({ key, label }) => ({ key, label })),
      samples,
      sample_count: total,
      pagination,
      store_status_counts: {
        draft: aggregate.draft,
        'pending-review': aggregate.pending_review,
        published: aggregate.published,
      },
      feedback,
    };
  }

  /** One pass over the batch: totals per store status and, per column, "any value", "one value for all", the value. */
  private async aggregate(where: SqlCondition): Promise<AggregateRow> {
    return this.samples.flatAggregate<AggregateRow>(where, this.columns);
  }

  /** The page of samples in registration order: igsn and name always, then the differing columns. */
  private async page(
    where: SqlCondition,
    differing: CurationColumn[],
    page: PageRequest,
  ): Promise<Record<string, string | null>[]> {
    const rows = await this.samples.flatPage(where, differing, { limit: page.pageSize, offset: page.offset });
    const toDoi = (suffix: string) => this.igsn.toDoi(suffix);
    return rows.map((row) => {
      const sample: Record<string, string | null> = {
        igsn: this.igsn.toDoi(String(row.sample_igsn)),
        name: String(row.sample_name),
      };
      differing.forEach((column, index) => {
        sample[column.key] = formatCurationValue(row[`c${index}`], column.format, toDoi);
      });
      return sample;
    });
  }

  private async recentFeedback(batchId: number): Promise<BatchFeedbackDto[]> {
    const rows = await this.dataSource.query<FeedbackRow[]>(
      `SELECT f.id, f.author_id, ai.label AS author_name, f.general_feedback, f.sample_feedback, f.created_at
         FROM batch_feedback f
         LEFT JOIN registry_user au ON au.id = f.author_id
         LEFT JOIN individual ai ON ai.id = au.individual_id
        WHERE f.batch_id = $1
        ORDER BY f.created_at DESC, f.id DESC
        LIMIT ${DETAIL_FEEDBACK_LIMIT}`,
      [batchId],
    );
    return rows.map((row) => ({
      id: row.id,
      author_id: row.author_id,
      author_name: row.author_name,
      general_feedback: row.general_feedback,
      sample_feedback: row.sample_feedback,
      created_at: row.created_at.toISOString(),
    }));
  }

  /** GET /api/batches/{id}/events/: the batch's audit trail, newest first. */
  async events(
    req: Request,
    idValue: string,
    user: AuthenticatedUser,
    page: PageRequest,
  ): Promise<Paginated<CurationEventDto>> {
    const batch = await this.batches.requireVisible(idValue, user);
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
        [batch.id, page.pageSize, page.offset],
      ),
      this.dataSource.query<{ count: number }[]>(
        'SELECT count(*)::int AS count FROM curation_event WHERE batch_id = $1',
        [batch.id],
      ),
    ]);
    return paginate(
      req,
      page,
      counted[0].count,
      rows.map((row) => ({
        id: Number(row.id),
        action: row.action,
        actor_id: row.actor_id,
        actor_name: row.actor_name,
        from_state: row.from_state,
        to_state: row.to_state,
        affected_count: row.affected_count,
        reason: row.reason,
        comment: row.comment,
        created_at: row.created_at.toISOString(),
      })),
    );
  }
}
