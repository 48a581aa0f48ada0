import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { QueueName } from '../../core/queue/queue-names';
import { startQueueWorker } from '../../core/queue/queue-worker';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { SampleExportBuilder } from './sample-export.builder';

/** Worker side of sample exports: one BullMQ job per BackgroundJob row (same id). */
@Injectable()
export class SampleExportProcessor implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SampleExportProcessor.name);
  private worker?: Worker<{ jobId: string }>;

  constructor(
    private readonly builder: SampleExportBuilder,
    private readonly jobs: BackgroundJobsService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.worker = startQueueWorker(this.config, QueueName.SampleExport, (job) => this.process(job));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  async process(job: Job<{ jobId: string }>): Promise<void> {
    try {
      await this.builder.run(job.data.jobId);
    } catch (error) {
      const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logger.error(
        `Export job ${job.data.jobId} attempt ${job.attemptsMade + 1} failed: ${(error as Error).stack}`,
      );
      if (final) await this.jobs.fail(job.data.jobId, 'The export could not be produced because of an internal error.');
      throw error;
    }
  }
}
