import { InjectQueue } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { withTimeout } from '../../core/async/with-timeout';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { Clock } from '../../core/clock';
import { ReadRouting, userCaller } from '../../core/database/read-replicas/read-routing.service';
import { ApiError } from '../../core/http/api-error';
import { isUuid } from '../../core/http/uuid';
import { QueueName } from '../../core/queue/queue-names';
import { UserRepository } from '../accounts/user.repository';
import { FileWithContent, FilesService } from '../files/files.service';
import { BackgroundJob, JobType } from './background-job.entity';
import { BackgroundJobRepository } from './background-job.repository';
import { BackgroundJobDto } from './dto/background-job.dto';
import { boundJobMessage } from './job-message';

export const CANCELLED_MESSAGE = 'Cancelled by user.';

/**
 * How long a request waits for Redis to take a job. Past it the request answers anyway (the row
 * is committed) and the worker's recovery sweep enqueues the job when Redis is back.
 */
const ENQUEUE_TIMEOUT_MS = 2000;

const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The header in the OpenAPI document of the endpoints that create jobs. */
export const IDEMPOTENCY_KEY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  description:
    'Any unique string (a UUID, for example). Retrying with the same key returns the job the first request ' +
    'created instead of creating another.',
};

/** The `Idempotency-Key` request header: 1-255 visible ASCII characters, or none. */
export function parseIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value.trim())) {
    throw ApiError.badRequest('Invalid Idempotency-Key header.', {
      'Idempotency-Key': ['must be 1 to 255 visible ASCII characters (a UUID, for example)'],
    });
  }
  return value.trim();
}

function isIdempotencyConflict(error: unknown): boolean {
  const driver = (error as { driverError?: { code?: string; constraint?: string } }).driverError ?? {};
  return driver.code === '23505' && driver.constraint === 'uq_background_job_idempotency';
}

const QUEUE_OF: Record<JobType, QueueName> = {
  batch_registration: QueueName.BatchRegistration,
  sample_export: QueueName.SampleExport,
  label_sheet: QueueName.LabelSheet,
  ownership_transfer: QueueName.OwnershipTransfer,
  sample_reservation: QueueName.SampleReservation,
};

/** The job cannot be done as asked (bad input, no room left): it fails for good with this message, no retry. */
export class JobRejectedError extends Error {}

/** A file a job made, to be stored for its owner's download until it expires. */
export interface JobFile {
  filename: string;
  contentType: string;
  content: Buffer;
  ownerUserId: number;
  expiresAt: Date;
  /** What the owner is told when the file does not fit in their storage: `The {noun} is N bytes but …`. */
  noun: string;
  /** What they can do about it, appended to that message. */
  remedy: string;
}

/** Thrown inside a job's transaction when it was cancelled or taken over: the work rolls back. */
export class JobCancelledError extends Error {
  constructor() {
    super(CANCELLED_MESSAGE);
  }
}

export function toJobDto(job: BackgroundJob): BackgroundJobDto {
  return {
    id: job.id,
    job_type: job.jobType,
    status: job.status,
    payload: job.payload,
    result: job.result,
    error_message: job.errorMessage,
    total_count: job.totalCount,
    processed_count: job.processedCount,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

/**
 * Job rows and their queue entries. A job is created inside the caller's transaction and enqueued
 * after it commits (BullMQ jobId = row id, so a repeated enqueue is a no-op); if the enqueue is
 * lost, the recovery sweep enqueues it again from the row.
 */
@Injectable()
export class BackgroundJobsService {
  private readonly logger = new Logger(BackgroundJobsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly backgroundJobRepository: BackgroundJobRepository,
    private readonly userRepository: UserRepository,
    @InjectQueue(QueueName.BatchRegistration) private readonly batchQueue: Queue,
    @InjectQueue(QueueName.SampleExport) private readonly exportQueue: Queue,
    @InjectQueue(QueueName.LabelSheet) private readonly labelQueue: Queue,
    @InjectQueue(QueueName.OwnershipTransfer) private readonly transferQueue: Queue,
    @InjectQueue(QueueName.SampleReservation) private readonly reservationQueue: Queue,
    private readonly filesService: FilesService,
    private readonly clock: Clock,
    private readonly routing: ReadRouting,
  ) {}

  private queueFor(type: JobType): Queue {
    const queues: Partial<Record<QueueName, Queue>> = {
      [QueueName.BatchRegistration]: this.batchQueue,
      [QueueName.SampleExport]: this.exportQueue,
      [QueueName.LabelSheet]: this.labelQueue,
      [QueueName.OwnershipTransfer]: this.transferQueue,
      [QueueName.SampleReservation]: this.reservationQueue,
    };
    return queues[QUEUE_OF[type]] as Queue;
  }

  async create(
    manager: EntityManager,
    input: {
      jobType: JobType;
      userId: number;
      payload: Record<string, unknown>;
      totalCount?: number | null;
      idempotencyKey?: string;
    },
  ): Promise<BackgroundJob> {
    return this.backgroundJobRepository.insert(manager, {
      id: randomUUID(),
      jobType: input.jobType,
      status: 'pending',
      payload: input.payload,
      userId: input.userId,
      totalCount: input.totalCount ?? null,
      processedCount: 0,
      createdAt: this.clock.now(),
      idempotencyKey: input.idempotencyKey ?? null,
    });
  }

  /** Replaces the payload of a job created in this transaction. */
  async setPayload(manager: EntityManager, id: string, payload: Record<string, unknown>): Promise<void> {
    await this.backgroundJobRepository.setPayload(manager, id, payload);
  }

  /**
   * The user's pending or running exports, counted with the user's row locked until the
   * transaction ends, so concurrent requests of one user count one after the other.
   */
  async countOpenExports(manager: EntityManager, userId: number): Promise<number> {
    await this.userRepository.lockForUpdate(manager, userId);
    return this.backgroundJobRepository.countOpenExports(manager, userId);
  }

  /**
   * A job created at most once per Idempotency-Key: the user's earlier job with this key when
   * there is one (`replayed`), else the job `create` makes (in its own transaction, with the key)
   * and enqueues. Two requests racing with one key: the unique index lets one commit and the
   * other returns that one's job.
   */
  async createOnce(
    userId: number,
    jobType: JobType,
    idempotencyKey: string | undefined,
    create: () => Promise<BackgroundJob>,
  ): Promise<{ job: BackgroundJob; replayed: boolean }> {
    const earlier = () => (idempotencyKey ? this.findByIdempotencyKey(userId, jobType, idempotencyKey) : undefined);
    const existing = await earlier();
    if (existing) return { job: existing, replayed: true };
    let job: BackgroundJob;
    try {
      job = await create();
    } catch (error) {
      const winner = isIdempotencyConflict(error) ? await earlier() : undefined;
      if (winner) return { job: winner, replayed: true };
      throw error;
    }
    await this.enqueue(job);
    return { job, replayed: false };
  }

  private async findByIdempotencyKey(
    userId: number,
    jobType: JobType,
    key: string,
  ): Promise<BackgroundJob | undefined> {
    const job = await this.backgroundJobRepository.findByIdempotencyKey(userId, key);
    if (job && job.jobType !== jobType) {
      throw ApiError.conflict('This Idempotency-Key was already used for a different kind of request.', {
        'Idempotency-Key': [`names a ${job.jobType} job`],
      });
    }
    return job ?? undefined;
  }

  /**
   * Puts the job on its queue. Failure (or Redis not answering within ENQUEUE_TIMEOUT_MS) is
   * logged, not thrown: the sweep retries from the row.
   */
  async enqueue(job: Pick<BackgroundJob, 'id' | 'jobType'>): Promise<boolean> {
    try {
      await withTimeout(
        this.queueFor(job.jobType).add(job.jobType, { jobId: job.id }, { jobId: job.id }),
        ENQUEUE_TIMEOUT_MS,
        'Redis',
      );
      return true;
    } catch (error) {
      this.logger.warn(`Could not enqueue job ${job.id} (the recovery sweep will): ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * After a job's run committed: what it wrote counts as its owner's write, so the owner's next
   * reads (their new samples, a transfer's result) see it even on a standby (docs/operations/replicas.md).
   */
  async rememberOwnersWrite(id: string): Promise<void> {
    if (!this.routing.enabled) return;
    try {
      const job = await this.find(id);
      if (job) await this.routing.rememberWrite(userCaller(job.userId));
    } catch (error) {
      // The job is done; without the position the owner may read a standby a moment behind it.
      this.logger.warn(`Could not remember the write position of job ${id}: ${(error as Error).message}`);
    }
  }

  async find(id: string, manager?: EntityManager): Promise<BackgroundJob | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.backgroundJobRepository.find(id, manager)) ?? undefined;
  }

  /** The job if the caller owns it or is staff; 404 otherwise (another user's job does not exist). */
  async requireVisible(id: string, user: AuthenticatedUser): Promise<BackgroundJob> {
    const job = await this.find(id);
    if (!job || (job.userId !== user.userId && !user.isStaff && !user.isAdmin)) {
      throw ApiError.notFound('Job not found.');
    }
    return job;
  }

  /** pending/processing → failed with "Cancelled by user."; a processing job rolls back at its next chunk. */
  async cancel(id: string, user: AuthenticatedUser): Promise<BackgroundJob> {
    const job = await this.requireVisible(id, user);
    if (!(await this.backgroundJobRepository.cancel(job.id, CANCELLED_MESSAGE, this.clock.now()))) {
      throw ApiError.badRequest(`Only pending or processing jobs can be cancelled; this job is ${job.status}.`, {
        status: [`is ${job.status}`],
      });
    }
    await this.queueFor(job.jobType)
      .remove(job.id)
      .catch(() => undefined);
    return (await this.find(job.id)) as BackgroundJob;
  }

  async download(id: string, user: AuthenticatedUser): Promise<FileWithContent> {
    const job = await this.requireVisible(id, user);
    const file = job.resultFileId ? await this.filesService.read(job.resultFileId, this.clock.now()) : undefined;
    if (!file) throw ApiError.notFound('This job has no file to download (or it has expired).');
    return file;
  }

  // ---- worker side -------------------------------------------------------------------------

  /**
   * Claims a job for processing. Returns undefined when there is nothing to do: it is finished
   * (a repeated delivery), cancelled, or gone.
   */
  async start(id: string): Promise<BackgroundJob | undefined> {
    return (await this.backgroundJobRepository.claim(id, this.clock.now())) ? this.find(id) : undefined;
  }

  /** Progress, written outside the job's transaction so users see it while the work runs. */
  async progress(id: string, processed: number, total?: number): Promise<void> {
    await this.backgroundJobRepository.setProgress(id, processed, total ?? null);
  }

  /**
   * Whether a running attempt must stop and roll back: the user cancelled, or the job was taken
   * over by a newer attempt (this worker lost its lock, e.g. while paused), or it is finished.
   */
  async shouldStop(id: string, attempt: number): Promise<boolean> {
    const row = await this.backgroundJobRepository.runState(id);
    return !row || row.cancel_requested || row.attempts !== attempt || row.status !== 'processing';
  }

  /**
   * Marks the job completed inside the transaction that wrote its results, so results and status
   * commit together. Only the attempt that last claimed the job may complete it: a stalled copy
   * still running elsewhere rolls back. Throws JobCancelledError (rolling everything back) if the
   * user cancelled or another attempt took over.
   */
  async complete(
    manager: EntityManager,
    id: string,
    attempt: number,
    outcome: { result: Record<string, unknown>; processedCount: number; resultFileId?: string | null },
  ): Promise<void> {
    const completed = await this.backgroundJobRepository.complete(manager, id, attempt, {
      result: outcome.result,
      processedCount: outcome.processedCount,
      resultFileId: outcome.resultFileId ?? null,
      finishedAt: this.clock.now(),
    });
    if (!completed) throw new JobCancelledError();
  }

  /**
   * Stores the job's file and completes the job in one transaction. The file counts toward its
   * owner's storage until it expires (FilesService.removeExpired gives it back); a file that does
   * not fit is a JobRejectedError saying so. JobCancelledError as `complete`.
   */
  async completeWithFile(
    id: string,
    attempt: number,
    file: JobFile,
    outcome: { result: Record<string, unknown>; processedCount: number },
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const left = await this.filesService.chargeStorage(manager, file.ownerUserId, file.content.length);
      if (left !== undefined) {
        throw new JobRejectedError(
          `The ${file.noun} is ${file.content.length} bytes but only ${left} bytes of your storage are left; ${file.remedy}`,
        );
      }
      const stored = await this.filesService.store(
        {
          filename: file.filename,
          contentType: file.contentType,
          content: file.content,
          ownerUserId: file.ownerUserId,
          expiresAt: file.expiresAt,
          quotaCharged: true,
        },
        manager,
      );
      await this.complete(manager, id, attempt, { ...outcome, resultFileId: stored.id });
    });
  }

  /**
   * A job that cannot succeed (bad input): failed for good, with a message and maybe a report. A
   * message longer than JOB_MESSAGE_MAX_CHARS is stored cut, with a marker; the log keeps it whole.
   */
  async fail(
    id: string,
    message: string,
    extra: { result?: Record<string, unknown>; resultFileId?: string | null } = {},
  ): Promise<void> {
    const stored = boundJobMessage(message);
    if (stored !== message) this.logger.warn(`Job ${id} failed; its message, stored truncated, was: ${message}`);
    await this.backgroundJobRepository.fail(id, stored, {
      result: extra.result ?? null,
      resultFileId: extra.resultFileId ?? null,
      finishedAt: this.clock.now(),
    });
  }

  /** Jobs still open in PostgreSQL, for the recovery sweep. */
  async openJobs(olderThan: Date): Promise<BackgroundJob[]> {
    return this.backgroundJobRepository.open(olderThan);
  }

  /** Re-adds open jobs whose queue entry is missing (Redis lost it) or dead. */
  async recover(olderThan: Date): Promise<number> {
    let recovered = 0;
    for (const job of await this.openJobs(olderThan)) {
      const queue = this.queueFor(job.jobType);
      const entry = await queue.getJob(job.id);
      const state = entry ? await entry.getState() : 'missing';
      if (state === 'missing' || state === 'failed' || state === 'completed' || state === 'unknown') {
        if (entry) await entry.remove().catch(() => undefined);
        if (await this.enqueue(job)) recovered++;
      }
    }
    return recovered;
  }
}
