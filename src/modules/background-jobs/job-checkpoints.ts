import { BackgroundJobsService, JobCancelledError } from './background-jobs.service';

/**
 * The checkpoints of one attempt of a long job: every `every` items its progress is reported and
 * the job asked whether the run must stop (cancelled, or taken over by a newer attempt), without
 * holding the run up for those round trips — each answer is read at the next checkpoint, or at
 * `settle`. A run that must stop therefore stops at most `every` items later, and never commits:
 * completing checks the attempt again (BackgroundJobsService.complete).
 */
export class JobCheckpoints {
  private inFlight?: Promise<boolean>;

  constructor(
    private readonly jobs: BackgroundJobsService,
    private readonly jobId: string,
    private readonly attempt: number,
    private readonly every: number,
  ) {}

  /** After each item: throws JobCancelledError once a check has said the run must stop. */
  async reached(done: number): Promise<void> {
    if (done % this.every !== 0) return;
    await this.settle();
    const check = this.jobs.progress(this.jobId, done).then(() => this.jobs.shouldStop(this.jobId, this.attempt));
    check.catch(() => undefined); // read (and thrown) at the next checkpoint or at settle
    this.inFlight = check;
  }

  /** Waits for the last check sent; throws JobCancelledError if it said the run must stop, or its error. */
  async settle(): Promise<void> {
    const check = this.inFlight;
    this.inFlight = undefined;
    if (check && (await check)) throw new JobCancelledError();
  }
}
