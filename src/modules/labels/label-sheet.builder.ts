import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { privateWorkDir, tempFileName } from '../../core/files/private-temp-dir';
import { ApiError } from '../../core/http/api-error';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJobsService, JobCancelledError, JobRejectedError } from '../background-jobs/background-jobs.service';
import { IgsnService } from '../samples';
import { sampleResolvableUrl } from '../samples';
import { SampleMapper } from '../samples';
import { Sql } from '../../core/database/sql';
import { SampleCursor, SampleSelectionRepository } from '../samples';
import { SampleSearchCondition } from '../samples';
import { LABEL_LAYOUTS } from './label-layouts';
import { labelLines } from './label-fields';
import { LabelSheetPayload, readLabelSheetPayload } from './label-sheet-payload';
import { LabelSheetWriter } from './label-sheet.pdf';
import { LabelSheetsService } from './label-sheets.service';

/** Samples read and drawn per keyset page: bounds what the worker holds. */
const PAGE_SIZE = 500;

/** `labels-a4-3x7-2026-11-22T10-00-00Z.pdf`. */
function labelFilename(layout: string, at: Date): string {
  return `labels-${layout}-${at.toISOString().slice(0, 19).replace(/:/g, '-')}Z.pdf`;
}

/**
 * The worker's label sheet: the selection and its visibility as for the user now, read in one
 * read-only snapshot by keyset pages (newest first, as the search lists them), drawn page by page
 * into a temporary PDF, which is stored (until EXPORT_TTL, charged to the user's storage) together
 * with the job's completion. Progress and cancellation after every page.
 */
@Injectable()
export class LabelSheetBuilder {
  constructor(
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly labelSheetsService: LabelSheetsService,
    private readonly sampleSelectionRepository: SampleSelectionRepository,
    private readonly mapper: SampleMapper,
    private readonly igsnService: IgsnService,
    private readonly accountsService: AccountsService,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  async run(jobId: string): Promise<void> {
    const job = await this.backgroundJobsService.start(jobId);
    if (!job) return;
    const payload = readLabelSheetPayload(job.payload);
    if (!payload) return this.backgroundJobsService.fail(jobId, 'The label request could not be read.');
    const user = await this.accountsService.actingUser(job.userId);
    if (!user)
      return this.backgroundJobsService.fail(jobId, 'The account that asked for these labels is no longer active.');
    let condition: SampleSearchCondition;
    try {
      condition = await this.labelSheetsService.condition({ query: payload.query, batchId: payload.batch_id }, user);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return this.backgroundJobsService.fail(jobId, `The search can no longer be run: ${error.message}`);
    }
    const path = join(await privateWorkDir(), tempFileName(`labels-${jobId}-${job.attempts}-${randomUUID()}.pdf`));
    try {
      const count = await this.draw(path, jobId, job.attempts, payload, condition.where);
      const content = await readFile(path);
      const filename = labelFilename(payload.layout, this.clock.now());
      const expiresAt = new Date(this.clock.now().getTime() + this.config.exports.ttlSeconds * 1000);
      await this.backgroundJobsService.completeWithFile(
        jobId,
        job.attempts,
        {
          filename,
          contentType: 'application/pdf',
          content,
          ownerUserId: job.userId,
          expiresAt,
          noun: 'label sheet',
          remedy: 'print fewer labels, or wait for earlier files to expire.',
        },
        {
          result: { layout: payload.layout, sample_count: count, filename, expires_at: expiresAt.toISOString() },
          processedCount: count,
        },
      );
    } catch (error) {
      if (error instanceof JobRejectedError) return this.backgroundJobsService.fail(jobId, error.message);
      if (error instanceof JobCancelledError) return; // cancelled, or a newer attempt owns the job
      throw error; // unexpected: BullMQ retries with back-off
    } finally {
      await rm(path, { force: true });
    }
  }

  /** Draws one label per sample into the file; returns how many. */
  private async draw(
    path: string,
    jobId: string,
    attempt: number,
    payload: LabelSheetPayload,
    condition: Sql,
  ): Promise<number> {
    return this.sampleSelectionRepository.inReadOnlySnapshot(async (manager) => {
      const { count } = await this.sampleSelectionRepository.registryCodeFacts(manager, condition);
      const max = this.config.labels.maxSamples;
      if (count === 0) throw new JobRejectedError('There is no sample to print a label for (any more).');
      if (count > max) {
        throw new JobRejectedError(`The selection now finds ${count} samples; one label sheet holds at most ${max}.`);
      }
      await this.backgroundJobsService.progress(jobId, 0, count);
      const writer = new LabelSheetWriter(path, LABEL_LAYOUTS[payload.layout], { title: 'Sample labels' });
      let finished = false;
      try {
        let drawn = 0;
        let cursor: SampleCursor | undefined;
        for (;;) {
          const page = await this.sampleSelectionRepository.keysetPage(manager, condition, cursor, PAGE_SIZE);
          if (!page.rows.length) break;
          cursor = page.cursor;
          await writer.write(
            page.rows.map((row) => {
              const sample = this.mapper.toDto(row, false);
              return {
                url: sampleResolvableUrl(sample.igsn, this.config, payload.base_url),
                igsn: sample.igsn,
                name: sample.name,
                lines: labelLines(sample, payload.fields),
              };
            }),
          );
          drawn += page.rows.length;
          await this.backgroundJobsService.progress(jobId, drawn);
          if (await this.backgroundJobsService.shouldStop(jobId, attempt)) throw new JobCancelledError();
          if (page.rows.length < PAGE_SIZE) break;
        }
        await writer.finish();
        finished = true;
        return drawn;
      } finally {
        if (!finished) writer.abort();
      }
    });
  }
}
