import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EntityManager } from 'typeorm';
import { Clock } from '../../core/clock';
import { privateWorkDir, tempFileName } from '../../core/files/private-temp-dir';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ReadRouting, userCaller } from '../../core/database/read-replicas/read-routing.service';
import { ApiError } from '../../core/http/api-error';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJobsService, JobCancelledError, JobRejectedError } from '../background-jobs/background-jobs.service';
import { SampleDto } from '../samples';
import { SampleAccessPolicy } from '../samples';
import { SampleMapper, accessFacts } from '../samples';
import { SampleCursor, SampleSelectionRepository } from '../samples';
import { SampleSearchCondition, SampleSearchService } from '../samples';
import { CsvExportWriter, ExportFileWriter, XlsxExportWriter } from './export-files';
import { EXPORT_CONTENT_TYPES, ExportFormat } from './export-formats';
import { EXPORT_PAGE_SIZE, exportTtlSeconds } from './export-settings';
import { readExportPayload } from './sample-export-payload';

/** Rows of one worksheet in Excel, the header included. */
const XLSX_MAX_ROWS = 1_048_576;

/** `samples-export-2026-11-22T10-00-00Z.csv`: the moment the export's snapshot was taken. */
export function exportFilename(at: Date, format: ExportFormat): string {
  return `samples-export-${at.toISOString().slice(0, 19).replace(/:/g, '-')}Z.${format}`;
}

/**
 * The worker's sample export. The search and its visibility rules are those of GET /api/samples/
 * (SampleSearchService.searchCondition), evaluated again for the user as they are now. The samples are
 * read in one read-only REPEATABLE READ transaction (the count and every page see the same
 * snapshot) by keyset pagination over (created_at DESC, id DESC), one page at a time into a
 * temporary file, which is then stored (with an expiry) together with the job's completion.
 * Progress is written and cancellation checked after every page.
 */
@Injectable()
export class SampleExportBuilder {
  constructor(
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly sampleSearchService: SampleSearchService,
    private readonly sampleSelectionRepository: SampleSelectionRepository,
    private readonly mapper: SampleMapper,
    private readonly policy: SampleAccessPolicy,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
    private readonly routing: ReadRouting,
  ) {}

  /** Runs one job; returns quietly when there is nothing (left) to do. */
  async run(jobId: string): Promise<void> {
    const job = await this.backgroundJobsService.start(jobId);
    if (!job) return;
    const attempt = job.attempts;
    const payload = readExportPayload(job.payload);
    if (!payload) {
      await this.backgroundJobsService.fail(jobId, 'The export request could not be read.');
      return;
    }
    const user = await this.accountsService.actingUser(job.userId);
    if (!user) {
      await this.backgroundJobsService.fail(jobId, 'The account that asked for this export is no longer active.');
      return;
    }
    let search: SampleSearchCondition;
    try {
      search = await this.sampleSearchService.searchCondition(payload.query, user);
    } catch (error) {
      // E.g. an object type named in the search was removed since: the search cannot run as asked.
      if (!(error instanceof ApiError)) throw error;
      await this.backgroundJobsService.fail(jobId, `The search can no longer be run: ${error.message}`);
      return;
    }

    const takenAt = this.clock.now();
    const filename = exportFilename(takenAt, payload.format);
    // A private directory, and a name starting with this pid, so a crash's leftovers are swept.
    const path = join(
      await privateWorkDir(),
      tempFileName(`export-${jobId}-${attempt}-${randomUUID()}.${payload.format}`),
    );
    try {
      // The samples are read as their owner reads them: on a standby that has replayed the owner's
      // last write (ReadRouting); the job's own bookkeeping stays on the primary.
      const count = await this.routing.run({ caller: userCaller(job.userId), writes: false }, () =>
        this.writeFile(path, jobId, attempt, payload.format, search),
      );
      // The files table holds bytea: the finished file is read once into memory for the INSERT.
      const content = await readFile(path);
      const expiresAt = new Date(this.clock.now().getTime() + exportTtlSeconds(this.config) * 1000);
      await this.backgroundJobsService.completeWithFile(
        jobId,
        attempt,
        {
          filename,
          contentType: EXPORT_CONTENT_TYPES[payload.format],
          content,
          ownerUserId: job.userId,
          expiresAt,
          noun: 'export',
          remedy: 'narrow the search, or wait for earlier exports to expire.',
        },
        {
          result: { format: payload.format, sample_count: count, filename, expires_at: expiresAt.toISOString() },
          processedCount: count,
        },
      );
    } catch (error) {
      if (error instanceof JobRejectedError) {
        await this.backgroundJobsService.fail(jobId, error.message);
        return;
      }
      if (error instanceof JobCancelledError) return; // cancelled, or a newer attempt owns the job
      throw error; // unexpected: BullMQ retries with back-off
    } finally {
      await rm(path, { force: true });
    }
  }

  /** Writes the file; returns the number of samples in it. */
  private async writeFile(
    path: string,
    jobId: string,
    attempt: number,
    format: ExportFormat,
    search: SampleSearchCondition,
  ): Promise<number> {
    return this.sampleSelectionRepository.inReadOnlySnapshot(async (manager) => {
      const facts = await this.sampleSelectionRepository.registryCodeFacts(manager, search.where);
      if (format === 'xlsx' && facts.count >= XLSX_MAX_ROWS) {
        throw new JobRejectedError(
          `The search finds ${facts.count} samples; an .xlsx sheet holds at most ${XLSX_MAX_ROWS - 1}. ` +
            'Export them as CSV, or narrow the search.',
        );
      }
      await this.backgroundJobsService.progress(jobId, 0, facts.count);
      const writer: ExportFileWriter =
        format === 'csv'
          ? new CsvExportWriter(path)
          : new XlsxExportWriter(path, { registryCode: facts.codes === 1 ? facts.code : null });
      let finished = false;
      try {
        let written = 0;
        await this.forEachPage(manager, search, async (page) => {
          await writer.write(page);
          written += page.length;
          await this.backgroundJobsService.progress(jobId, written);
          if (await this.backgroundJobsService.shouldStop(jobId, attempt)) throw new JobCancelledError();
        });
        await writer.finish();
        finished = true;
        return written;
      } finally {
        if (!finished) writer.abort();
      }
    });
  }

  /**
   * The matching samples, newest first, a page at a time. Keyset pagination: each page starts
   * after the last (created_at, id) of the previous one, so every page is an index range scan
   * (idx_sample_newest, or the owner/team indexes) however deep the export goes. The cursor's
   * created_at travels as text: a JS Date would lose the microseconds.
   */
  private async forEachPage(
    manager: EntityManager,
    search: SampleSearchCondition,
    visit: (page: SampleDto[]) => Promise<void>,
  ): Promise<void> {
    let cursor: SampleCursor | undefined;
    for (;;) {
      const page = await this.sampleSelectionRepository.keysetPage(manager, search.where, cursor, EXPORT_PAGE_SIZE);
      const rows = page.rows;
      if (!rows.length) return;
      cursor = page.cursor;
      await visit(rows.map((row) => this.mapper.toDto(row, this.policy.canEdit(accessFacts(row), search.caller))));
      if (rows.length < EXPORT_PAGE_SIZE) return;
    }
  }
}
