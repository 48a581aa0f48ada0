import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { SEARCH_LIST_FILTERS, SEARCH_VALUE_FILTERS, SampleSearchQuery } from '../samples';
import { SampleSearchService } from '../samples';
import { SampleExportQueued, SampleExportRequestDto } from './dto/sample-export.dto';
import { EXPORT_FORMATS, ExportFormat } from './export-formats';
import { SampleExportPayload } from './sample-export-payload';

/** What a client over its concurrent-export limit is told to wait: about one small export. */
const EXPORT_RETRY_AFTER_SECONDS = 30;

/** The search as it is stored in the job: trimmed, blanks dropped, lists tidied, the scope explicit. */
export function normaliseExportQuery(input: SampleExportRequestDto): SampleSearchQuery {
  const query: SampleSearchQuery = {};
  for (const key of SEARCH_VALUE_FILTERS) {
    const value = input[key]?.trim();
    if (value) query[key] = value;
  }
  for (const key of SEARCH_LIST_FILTERS) {
    const parts = (input[key] ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    if (parts.length) query[key] = parts.join(',');
  }
  query.scope = input.scope?.trim() || 'personal';
  if (input.is_draft !== undefined) query.is_draft = String(input.is_draft);
  return query;
}

/**
 * POST /api/samples/export/: checks the search exactly as GET /api/samples/ does (a bad scope,
 * object type or country is a 400 now, not a failed job later), then records a `sample_export`
 * job and queues it. The worker evaluates the search and its visibility again when it runs.
 */
@Injectable()
export class SampleExportsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly sampleSearchService: SampleSearchService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async request(
    input: SampleExportRequestDto,
    user: AuthenticatedUser,
    idempotencyKey?: string,
  ): Promise<SampleExportQueued> {
    const format = (input.format ?? EXPORT_FORMATS[0]) as ExportFormat;
    const query = normaliseExportQuery(input);
    await this.sampleSearchService.searchCondition(query, user);
    const payload: SampleExportPayload = { format, query, user_id: user.userId };
    const { job } = await this.backgroundJobsService.createOnce(user.userId, 'sample_export', idempotencyKey, () =>
      this.dataSource.transaction(async (manager) => {
        await this.checkConcurrency(manager, user.userId);
        return this.backgroundJobsService.create(manager, {
          jobType: 'sample_export',
          userId: user.userId,
          payload: { ...payload },
          idempotencyKey,
        });
      }),
    );
    return { job_id: job.id, status: job.status };
  }

  /**
   * Each export holds a worker and a temporary file: a user may have a few pending or running at
   * once. The user's row is locked so that concurrent requests count one after the other.
   */
  private async checkConcurrency(manager: EntityManager, userId: number): Promise<void> {
    const open = await this.backgroundJobsService.countOpenExports(manager, userId);
    const limit = this.config.exports.maxConcurrentPerUser;
    if (open >= limit) {
      throw new ApiError(
        HttpStatus.TOO_MANY_REQUESTS,
        `You already have ${open} export(s) pending or running (at most ${limit}); try again when one has finished.`,
        {},
        { 'Retry-After': String(EXPORT_RETRY_AFTER_SECONDS) },
      );
    }
  }
}
