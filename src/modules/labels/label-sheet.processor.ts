import { Metrics } from '../../core/metrics/metrics';
import { QueueName } from '../../core/queue/queue-names';
import { QueueProcessor } from '../../core/queue/queue-processor';
import { BackgroundJobProcessor } from '../background-jobs/background-job.processor';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { LabelSheetBuilder } from './label-sheet.builder';

/** Worker side of label sheets: one BullMQ job per BackgroundJob row (same id). */
@QueueProcessor(QueueName.LabelSheet)
export class LabelSheetProcessor extends BackgroundJobProcessor {
  protected readonly failureMessage = 'The label sheet could not be produced because of an internal error.';

  constructor(
    private readonly builder: LabelSheetBuilder,
    jobs: BackgroundJobsService,
    metrics: Metrics,
  ) {
    super(jobs, metrics);
  }

  protected run(jobId: string): Promise<void> {
    return this.builder.run(jobId);
  }
}
