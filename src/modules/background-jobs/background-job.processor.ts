import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { Metrics } from '../../core/metrics/metrics';
import { processorQueue } from '../../core/queue/queue-processor';
import { BackgroundJobsService } from './background-jobs.service';

/** What the API puts on a queue: the id of the BackgroundJob row (also the BullMQ job id). */
export interface BackgroundJobData {
  jobId: string;
}

/**
 * The lifecycle every background job shares; subclasses say what running one means. The job's
 * state lives in PostgreSQL: `run` claims the row (BackgroundJobsService.start), and only the
 * attempt that last claimed it may complete it. An attempt that throws is retried by BullMQ; when
 * the last one fails, the row is marked failed with `failureMessage` (users never see internals).
 * Jobs Redis lost are re-enqueued by JobRecoveryService; on shutdown @nestjs/bullmq closes the
 * worker, which lets running jobs finish.
 */
export abstract class BackgroundJobProcessor extends WorkerHost {
  protected readonly logger = new Logger(this.constructor.name);

  private readonly queue = processorQueue(this.constructor) ?? 'unknown';

  protected constructor(
    protected readonly jobs: BackgroundJobsService,
    private readonly metrics: Metrics,
  ) {
    super();
  }

  /** Does the job's work for one attempt (claiming, checkpoints and completion included). */
  protected abstract run(jobId: string): Promise<void>;

  /** What the job's owner reads when the last attempt failed for an internal reason. */
  protected abstract readonly failureMessage: string;

  async process(job: Job<BackgroundJobData>): Promise<void> {
    const attempt = job.attemptsMade + 1;
    const stopTimer = this.metrics.jobDuration.startTimer({ queue: this.queue });
    try {
      await this.run(job.data.jobId);
      stopTimer({ outcome: 'completed' });
      await this.jobs.rememberOwnersWrite(job.data.jobId);
    } catch (error) {
      stopTimer({ outcome: 'failed' });
      this.logger.error(`Job ${job.data.jobId} attempt ${attempt} failed: ${(error as Error).stack}`);
      if (attempt >= (job.opts.attempts ?? 1)) await this.jobs.fail(job.data.jobId, this.failureMessage);
      throw error;
    }
  }

  /** Without a listener, a worker's connection error would be an uncaught exception. */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn(`Worker error: ${error.message}`);
  }
}
