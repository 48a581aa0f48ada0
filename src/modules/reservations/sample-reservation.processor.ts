import { Metrics } from '../../core/metrics/metrics';
import { QueueName } from '../../core/queue/queue-names';
import { QueueProcessor } from '../../core/queue/queue-processor';
import { BackgroundJobProcessor } from '../background-jobs/background-job.processor';
import { BackgroundJobsService } from '../background-jobs/background-jobs.service';
import { ReservationsService } from './reservations.service';

/** Worker side of large reservations: one BullMQ job per BackgroundJob row (same id). */
@QueueProcessor(QueueName.SampleReservation)
export class SampleReservationProcessor extends BackgroundJobProcessor {
  protected readonly failureMessage = 'The IGSNs could not be reserved because of an internal error; none was.';

  constructor(
    private readonly reservationsService: ReservationsService,
    jobs: BackgroundJobsService,
    metrics: Metrics,
  ) {
    super(jobs, metrics);
  }

  protected run(jobId: string): Promise<void> {
    return this.reservationsService.runJob(jobId);
  }
}
