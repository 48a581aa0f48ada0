import { Metrics } from '../../core/metrics/metrics';
import { QueueName } from '../../core/queue/queue-names';
import { QueueProcessor } from '../../core/queue/queue-processor';
import { BackgroundJobProcessor } from '../background-jobs/background-job.processor';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { SampleExportBuilder } from './sample-export.builder';

/** Worker side of sample exports: one BullMQ job per BackgroundJob row (same id). */
@QueueProcessor(QueueName.SampleExport)
export class SampleExportProcessor extends BackgroundJobProcessor {
  protected readonly failureMessage = 'The export could not be produced because of an internal error.';

  constructor(
    private readonly builder: SampleExportBuilder,
    jobs: BackgroundJobsService,
    metrics: Metrics,
  ) {
    super(jobs, metrics);
  }

  protected run(jobId: string): Promise<void> {
    return this.builder.run(jobId);
  }
}
