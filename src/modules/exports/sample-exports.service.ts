import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { SampleSearchQuery, SamplesService } from '../samples/samples.service';
import { SampleExportQueued, SampleExportRequestDto } from './dto/sample-export.dto';
import { EXPORT_FORMATS, ExportFormat } from './export-formats';
import { SampleExportPayload } from './sample-export-payload';

const TEXT_PARAMETERS = ['q', 'name', 'igsn'] as const;
const LIST_PARAMETERS = ['object_type', 'country'] as const;

/** The search as it is stored in the job: trimmed, blanks dropped, lists tidied, the scope explicit. */
export function normaliseExportQuery(input: SampleExportRequestDto): SampleSearchQuery {
  const query: SampleSearchQuery = {};
  for (const key of TEXT_PARAMETERS) {
    const value = input[key]?.trim();
    if (value) query[key] = value;
  }
  for (const key of LIST_PARAMETERS) {
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
    private readonly jobs: BackgroundJobsService,
    private readonly samples: SamplesService,
  ) {}

  async request(input: SampleExportRequestDto, user: AuthenticatedUser): Promise<SampleExportQueued> {
    const format = (input.format ?? EXPORT_FORMATS[0]) as ExportFormat;
    const query = normaliseExportQuery(input);
    await this.samples.searchCondition(query, user);
    const payload: SampleExportPayload = { format, query, user_id: user.userId };
    const job = await this.dataSource.transaction((manager) =>
      this.jobs.create(manager, { jobType: 'sample_export', userId: user.userId, payload: { ...payload } }),
    );
    await this.jobs.enqueue(job);
    return { job_id: job.id, status: job.status };
  }
}
