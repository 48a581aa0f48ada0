import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AuthenticatedUser } from '../../../core/auth/authenticated-user';
import { Clock } from '../../../core/clock';
import { PageRequest, Paginated, paginate } from '../../../core/http/pagination';
import { IgsnService } from '../../samples';
import { Sql } from '../../../core/database/sql';
import { SampleAccessPolicy } from '../../samples';
import { BatchesService } from '../batches.service';
import { SampleCurationRepository } from '../../samples';
import { CurationColumn, curationColumns, formatCurationValue } from './curation-fields';
import { CurationRepository } from './curation.repository';
import { BatchFeedbackDto, CurationDetail, CurationEventDto } from './dto/curation.dto';

/** Feedback entries the curation detail carries (newest first). */
export const DETAIL_FEEDBACK_LIMIT = 20;

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
    private readonly curationRepository: CurationRepository,
    private readonly batchesService: BatchesService,
    private readonly policy: SampleAccessPolicy,
    private readonly igsnService: IgsnService,
    private readonly sampleCurationRepository: SampleCurationRepository,
    private readonly clock: Clock,
  ) {}

  /** Which of a batch's samples the caller may see (the batch itself is named apart). */
  private async visibleSamples(user: AuthenticatedUser): Promise<Sql> {
    const caller = await this.policy.caller(user);
    return this.policy.visibleCondition('s', caller, this.clock.now());
  }

  async detail(req: Request, idValue: string, user: AuthenticatedUser, page: PageRequest): Promise<CurationDetail> {
    const batch = await this.batchesService.requireVisible(idValue, user);
    const visible = await this.visibleSamples(user);
    const [aggregate, feedback] = await Promise.all([
      this.sampleCurationRepository.flatAggregate<AggregateRow>(batch.id, visible, this.columns),
      this.recentFeedback(batch.id),
    ]);

    const shared: CurationDetail['shared_fields'] = [];
    const differing: CurationColumn[] = [];
    this.columns.forEach((column, index) => {
      if (aggregate[`s${index}`] === true) {
        const value = formatCurationValue(aggregate[`v${index}`], column.format, (suffix) =>
          this.igsnService.toDoi(suffix),
        );
        shared.push({ key: column.key, label: column.label, value: value ?? '' });
      } else if (aggregate[`a${index}`] === true) {
        differing.push(column);
      }
    });

    const total = aggregate.total;
    const samples = total > page.offset ? await this.page(batch.id, visible, differing, page) : [];
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

  /** The page of samples in registration order: igsn and name always, then the differing columns. */
  private async page(
    batchId: number,
    visible: Sql,
    differing: CurationColumn[],
    page: PageRequest,
  ): Promise<Record<string, string | null>[]> {
    const rows = await this.sampleCurationRepository.flatPage(batchId, visible, differing, {
      limit: page.pageSize,
      offset: page.offset,
    });
    const toDoi = (suffix: string) => this.igsnService.toDoi(suffix);
    return rows.map((row) => {
      const sample: Record<string, string | null> = {
        igsn: this.igsnService.toDoi(String(row.sample_igsn)),
        name: String(row.sample_name),
      };
      differing.forEach((column, index) => {
        sample[column.key] = formatCurationValue(row[`c${index}`], column.format, toDoi);
      });
      return sample;
    });
  }

  private async recentFeedback(batchId: number): Promise<BatchFeedbackDto[]> {
    const rows = await this.curationRepository.recentFeedback(batchId, DETAIL_FEEDBACK_LIMIT);
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
    const batch = await this.batchesService.requireVisible(idValue, user);
    const { rows, count } = await this.curationRepository.eventPage(batch.id, {
      limit: page.pageSize,
      offset: page.offset,
    });
    return paginate(
      req,
      page,
      count,
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
