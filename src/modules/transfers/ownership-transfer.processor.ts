import { Metrics } from '../../core/metrics/metrics';
import { QueueName } from '../../core/queue/queue-names';
import { QueueProcessor } from '../../core/queue/queue-processor';
import { BackgroundJobProcessor } from '../background-jobs/background-job.processor';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { TransfersService } from './transfers.service';

/** Worker side of large transfer acceptances: one BullMQ job per BackgroundJob row (same id). */
@QueueProcessor(QueueName.OwnershipTransfer)
export class OwnershipTransferProcessor extends BackgroundJobProcessor {
  protected readonly failureMessage =
    'The transfer could not be completed because of an internal error; nothing moved. Accept it again to retry.';

  constructor(
    private readonly transfersService: TransfersService,
    jobs: BackgroundJobsService,
    metrics: Metrics,
  ) {
    super(jobs, metrics);
  }

  protected run(jobId: string): Promise<void> {
    return this.transfersService.runJob(jobId);
  }
}
