import { Metrics } from '../../core/metrics/metrics';
import { QueueName } from '../../core/queue/queue-names';
import { QueueProcessor } from '../../core/queue/queue-processor';
import { BackgroundJobProcessor } from '../background-jobs/background-job.processor';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { BatchRegistrationService } from './batch-registration.service';

/** Worker side of batch registration: one BullMQ job per BackgroundJob row (same id). */
@QueueProcessor(QueueName.BatchRegistration)
export class BatchRegistrationProcessor extends BackgroundJobProcessor {
  protected readonly failureMessage = 'The batch could not be processed because of an internal error.';

  constructor(
    private readonly batchRegistrationService: BatchRegistrationService,
    jobs: BackgroundJobsService,
    metrics: Metrics,
  ) {
    super(jobs, metrics);
  }

  protected run(jobId: string): Promise<void> {
    return this.batchRegistrationService.run(jobId);
  }
}
