import { getQueueToken } from '@nestjs/bullmq';
import { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';
import { QueueName } from '../../src/core/queue/queue-names';

/** Polls `read` (a job's GET) until the job is completed or failed; throws after `timeoutMs`. */
export async function waitForFinishedJob<T extends { status: string }>(
  read: () => Promise<T>,
  timeoutMs = 60_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const job = await read();
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() - started > timeoutMs) throw new Error(`job still ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits until the worker is done with a background job's queue entry (BullMQ job id = the job's row
 * id): completed, failed, or removed. A cancelled job's row is `failed` at once, while the attempt
 * that was running goes on until it sees the cancel; this is the state to wait for before asserting
 * that the attempt left nothing behind.
 */
export async function waitForQueueEntrySettled(
  app: INestApplication,
  queue: QueueName,
  jobId: string,
  timeoutMs = 60_000,
): Promise<void> {
  const entries = app.get<Queue>(getQueueToken(queue));
  const started = Date.now();
  for (;;) {
    const entry = await entries.getJob(jobId);
    const state = entry ? await entry.getState() : 'removed';
    if (state === 'completed' || state === 'failed' || state === 'removed' || state === 'unknown') return;
    if (Date.now() - started > timeoutMs) throw new Error(`queue entry ${jobId} still ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
