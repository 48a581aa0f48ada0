import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { normaliseExportQuery } from '../exports/sample-exports.service';
import { SEARCH_LIST_FILTERS, SEARCH_VALUE_FILTERS } from '../samples';
import { SampleSelectionRepository } from '../samples';
import { SampleSearchCondition, SampleSearchService } from '../samples';
import { LabelSheetQueued, LabelSheetRequestDto } from './dto/label-sheet.dto';
import { LabelLayoutName } from './label-layouts';
import { DEFAULT_LABEL_FIELDS } from './label-fields';
import { LabelSheetPayload } from './label-sheet-payload';

/** The samples a label request names: a search (as GET /api/samples/) or a batch's visible samples. */
export interface LabelSelection {
  query?: ReturnType<typeof normaliseExportQuery>;
  batchId?: number;
}

/**
 * POST /api/samples/labels/: checks the request (the search exactly as GET /api/samples/ does),
 * counts the samples it finds (none, or more than LABELS_MAX_SAMPLES, is a 400 now rather than a
 * failed job later), then records a `label_sheet` job and queues it. The worker evaluates the
 * selection and its visibility again when it runs.
 */
@Injectable()
export class LabelSheetsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly sampleSearchService: SampleSearchService,
    private readonly sampleSelectionRepository: SampleSelectionRepository,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async request(
    input: LabelSheetRequestDto,
    user: AuthenticatedUser,
    baseUrl: string,
    idempotencyKey?: string,
  ): Promise<LabelSheetQueued> {
    const selection = this.selection(input);
    const count = await this.count(selection, user);
    const payload: LabelSheetPayload = {
      ...(selection.query ? { query: selection.query } : { batch_id: selection.batchId }),
      layout: (input.layout ?? 'a4-3x7') as LabelLayoutName,
      fields: input.fields ?? DEFAULT_LABEL_FIELDS,
      base_url: baseUrl,
      user_id: user.userId,
    };
    const { job } = await this.backgroundJobsService.createOnce(user.userId, 'label_sheet', idempotencyKey, () =>
      this.dataSource.transaction((manager) =>
        this.backgroundJobsService.create(manager, {
          jobType: 'label_sheet',
          userId: user.userId,
          payload: { ...payload },
          totalCount: count,
          idempotencyKey,
        }),
      ),
    );
    return { job_id: job.id, status: job.status, sample_count: job.totalCount ?? count };
  }

  private selection(input: LabelSheetRequestDto): LabelSelection {
    if (input.batch_id === undefined) return { query: normaliseExportQuery(input) };
    const filters = [...SEARCH_VALUE_FILTERS, ...SEARCH_LIST_FILTERS, 'scope', 'is_draft'] as const;
    const given = filters.filter((name) => input[name] !== undefined);
    if (given.length) {
      throw ApiError.badRequest('Give a search or a batch_id, not both.', {
        batch_id: [`cannot be combined with ${given.join(', ')}`],
      });
    }
    return { batchId: input.batch_id };
  }

  /** The search condition of a selection, for the user as they are now (the worker asks again). */
  async condition(selection: LabelSelection, user: AuthenticatedUser): Promise<SampleSearchCondition> {
    return selection.batchId !== undefined
      ? this.sampleSearchService.batchCondition(selection.batchId, user)
      : this.sampleSearchService.searchCondition(selection.query ?? {}, user);
  }

  private async count(selection: LabelSelection, user: AuthenticatedUser): Promise<number> {
    const { where } = await this.condition(selection, user);
    const max = this.config.labels.maxSamples;
    const count = await this.sampleSelectionRepository.countUpTo(where, max);
    const field = selection.batchId !== undefined ? 'batch_id' : 'search';
    if (count === 0) {
      throw ApiError.badRequest('There is no sample to print a label for.', {
        [field]: [field === 'batch_id' ? 'no sample of this batch is visible to you' : 'finds no sample'],
      });
    }
    if (count > max) {
      throw ApiError.badRequest(`One label sheet holds at most ${max} samples; narrow the search.`, {
        [field]: [`finds more than ${max} samples`],
      });
    }
    return count;
  }
}
