import { JobsOptions } from 'bullmq';

/**
 * Every BullMQ queue the service uses: the API registers (and enqueues to) all of them, and the
 * worker must have exactly one processor for each (QueueHandlers checks at start-up).
 */
export enum QueueName {
  BatchRegistration = 'batch-registration',
  SampleExport = 'sample-export',
  DoiRegistration = 'doi-registration',
  LabelSheet = 'label-sheet',
  OwnershipTransfer = 'ownership-transfer',
  SampleReservation = 'sample-reservation',
}

export const ALL_QUEUES: readonly QueueName[] = Object.values(QueueName);

/**
 * Defaults for every job: retried with exponential back-off, kept when failed (for inspection),
 * trimmed when completed. Callers pass a `jobId` (the BackgroundJob row's id) so a retried enqueue
 * never creates a second job.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 5000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: false,
};
