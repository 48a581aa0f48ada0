import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { privateWorkDir } from '../../core/files/private-temp-dir';
import { DEFAULT_JOB_OPTIONS } from '../../core/queue/queue-names';
import { AccountsService } from '../accounts/accounts.service';
import { BackgroundJobsService, JobCancelledError } from '../background-jobs/background-jobs.service';
import { JobCheckpoints } from '../background-jobs/job-checkpoints';
import { boundJobMessage } from '../background-jobs/job-message';
import { FilesService } from '../files/files.service';
import { IgsnService } from '../samples';
import { SampleAccessPolicy } from '../samples';
import { SampleReferences } from '../samples';
import { SampleWriteRepository } from '../samples';
import { SampleWriter } from '../samples';
import { ObjectTypeResolver } from '../vocabularies/object-type.resolver';
import { BatchHistory } from './batch-history.entity';
import { BatchHistoryRepository } from './batch-history.repository';
import { BatchBudgets, BatchWorkbook, BatchWorkbookRefused, BatchWorkbookUnreadable } from './batch-workbook';
import { collectAfterBatch } from './import/worker-heap';
import { BatchImport, BatchImportTools } from './import/batch-import';
import { BatchRejected } from './import/batch-rejected';
import { InlineRowChecks, NewRowChecks, PooledRowChecks } from './import/new-row-checks';
import { RowValidationPool } from './import/row-validation-pool';
import { MAX_BATCH_ROWS } from './xlsx-inspection';

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Progress (and the check for a cancellation) every 500 rows. */
const PROGRESS_EVERY = 500;
const ERROR_SAMPLE_LIMIT = 100;

/**
 * The worker's batch registration jobs: claims the job under its attempt, reads the uploaded
 * workbook, runs a BatchImport on it (the rules and steps of one batch), and fails the job with
 * an error report when the batch is refused.
 */
@Injectable()
export class BatchRegistrationService implements OnModuleDestroy {
  private readonly logger = new Logger(BatchRegistrationService.name);
  private readonly tools: BatchImportTools;
  private readonly validationPool?: RowValidationPool;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly batchHistoryRepository: BatchHistoryRepository,
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly filesService: FilesService,
    writer: SampleWriter,
    private readonly sampleWriteRepository: SampleWriteRepository,
    references: SampleReferences,
    igsn: IgsnService,
    policy: SampleAccessPolicy,
    private readonly accountsService: AccountsService,
    objectTypes: ObjectTypeResolver,
    private readonly clock: Clock,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {
    this.tools = {
      dataSource,
      batches: batchHistoryRepository,
      jobs: backgroundJobsService,
      writer,
      sampleWrites: sampleWriteRepository,
      references,
      igsn,
      policy,
      accounts: accountsService,
      objectTypes,
      clock,
      newRowChecks: (rowCount) => this.newRowChecks(rowCount),
    };
    const { validationThreads } = config.batches;
    if (validationThreads > 0) this.validationPool = new RowValidationPool(validationThreads);
  }

  /** Batch jobs running in this process (WORKER_CONCURRENCY may run several). */
  private running = 0;

  async onModuleDestroy(): Promise<void> {
    await this.validationPool?.close();
  }

  /** Large batches check their rows on the validation threads; small ones are not worth a message. */
  private newRowChecks(rowCount: number): NewRowChecks {
    const pool = this.validationPool;
    return pool && rowCount >= this.config.batches.threadsFromRows ? new PooledRowChecks(pool) : new InlineRowChecks();
  }

  private budgets(): BatchBudgets {
    return {
      maxRows: MAX_BATCH_ROWS,
      maxCells: this.config.batches.maxCells,
      maxInflatedBytes: this.config.batches.maxInflatedBytes,
    };
  }

  /** Runs one job; returns quietly when there is nothing (left) to do. */
  async run(jobId: string): Promise<void> {
    this.running++;
    try {
      await this.runJob(jobId);
    } finally {
      // The last batch running in this process is done: its memory goes back (collectAfterBatch).
      if (--this.running === 0) collectAfterBatch();
    }
  }

  private async runJob(jobId: string): Promise<void> {
    const job = await this.backgroundJobsService.start(jobId);
    if (!job) return;
    const attempt = job.attempts;
    const batchId = Number(job.payload.batch_id);
    const batch = await this.batchHistoryRepository.findById(batchId);
    const upload = batch?.fileId ? await this.filesService.read(batch.fileId, this.clock.now()) : undefined;
    if (!batch || !upload) {
      await this.backgroundJobsService.fail(jobId, 'The uploaded file is no longer available.');
      return;
    }
    let workbook: BatchWorkbook | undefined;
    try {
      await this.uploader(batch); // before the work of reading the file
      // The first rows, or all of them when the sheet names IGSNs; its failures are mapped below.
      workbook = await BatchWorkbook.open(upload.content, this.budgets(), await privateWorkDir());
      await new BatchImport(
        this.tools,
        {
          id: jobId,
          attempt,
          payload: job.payload,
          checkpoints: new JobCheckpoints(this.backgroundJobsService, jobId, attempt, PROGRESS_EVERY),
          uploader: (manager) => this.uploader(batch, manager),
        },
        batch,
        workbook,
      ).run();
      // A batch may grow the table by tens of thousands of rows at once: the next search must not
      // be planned on statistics that describe the table before it.
      await this.sampleWriteRepository.refreshStatistics(`batch ${batch.id}`);
    } catch (caught) {
      // The rows are read as they are registered: the workbook's failures come from opening it or from the import.
      const error = this.workbookFailure(caught, attempt);
      if (error instanceof BatchRejected) {
        let resultFileId: string | null = null;
        if (error.errorsByRow.size && workbook) {
          const report = await this.filesService.store({
            filename: `${(batch.filename ?? 'batch.xlsx').replace(/\.xlsx$/i, '')}-errors.xlsx`,
            contentType: XLSX_CONTENT_TYPE,
            content: await workbook.errorReport(error.errorsByRow),
            ownerUserId: job.userId,
          });
          resultFileId = report.id;
        }
        const errors = [...error.errorsByRow.entries()]
          .slice(0, ERROR_SAMPLE_LIMIT)
          .map(([row, message]) => ({ row, message: boundJobMessage(message) }));
        await this.backgroundJobsService.fail(jobId, error.message, {
          result: { error_count: error.errorsByRow.size, errors },
          resultFileId,
        });
        return;
      }
      if (error instanceof JobCancelledError) return; // rolled back: cancelled, or a newer attempt owns the job
      throw error; // unexpected: BullMQ retries with back-off
    } finally {
      await workbook?.dispose();
    }
  }

  /**
   * A refusal of the workbook fails the job for good. A reader failure the inspection did not
   * foresee may be passing (the work file, the disk): earlier attempts are retried by the queue;
   * the last one fails the batch for good. Other errors are returned as they are.
   */
  private workbookFailure(error: unknown, attempt: number): unknown {
    if (error instanceof BatchWorkbookRefused) return new BatchRejected(error.message);
    if (!(error instanceof BatchWorkbookUnreadable)) return error;
    this.logger.warn(`Unreadable batch workbook (attempt ${attempt}): ${error.stack}`);
    if (attempt < (DEFAULT_JOB_OPTIONS.attempts ?? 1)) return error;
    return new BatchRejected('The workbook could not be read; it may be damaged.');
  }

  /**
   * The uploader as they are now, not as they were at upload: a batch queued by an account since
   * deactivated, or since stripped of upload permission, fails instead of registering. Inside the
   * batch's transaction the account row is share-locked until it commits.
   */
  private async uploader(batch: BatchHistory, manager?: EntityManager): Promise<AuthenticatedUser> {
    const owner = await this.accountsService.activeUser(batch.uploadedById ?? 0, manager, { lock: !!manager });
    if (!owner) {
      throw new BatchRejected('The account that uploaded this batch is no longer active; nothing was registered.');
    }
    const uploadPermission = owner.uploadPermissionStatus === 1;
    if (!uploadPermission && !owner.isStaff && !owner.isAdmin) {
      throw new BatchRejected(
        'The account that uploaded this batch no longer has upload permission; nothing was registered.',
      );
    }
    return {
      userId: owner.id,
      email: owner.email,
      isStaff: owner.isStaff,
      isAdmin: owner.isAdmin,
      uploadPermission,
      tokenPairId: '',
      tokenKind: 'session',
      connection: null,
    };
  }
}
