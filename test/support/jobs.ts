import { getQueueToken } from '@nestjs/bullmq';
import { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';
import request from 'supertest';
import { QueueName } from '../../src/core/queue/queue-names';

/** A job as `GET /api/jobs/{id}/` shows it; suites narrow `result` and `payload` to their job type. */
export interface JobState {
  status: string;
  processed_count?: number;
}

type Who = { auth: Record<string, string> };
/** An app in this process, or the base URL of an API process. */
type Server = INestApplication | string;

export const jobFinished = (job: JobState): boolean => job.status === 'completed' || job.status === 'failed';

/**
 * Polls a job through the API as `who` until `until` holds (default: completed or failed); throws
 * with the last state after `timeoutMs`. The one way suites wait for a job.
 */
export async function waitForJob<T extends JobState>(
  server: Server,
  who: Who,
  jobId: string,
  options: { until?: (job: T) => boolean; timeoutMs?: number } = {},
): Promise<T> {
  const { until = jobFinished, timeoutMs = 60_000 } = options;
  const http = () => (typeof server === 'string' ? request(server) : request(server.getHttpServer()));
  const started = Date.now();
  for (;;) {
    const job = (await http().get(`/api/jobs/${jobId}/`).set(who.auth).expect(200)).body.data as T;
    if (until(job)) return job;
    if (Date.now() - started > timeoutMs) throw new Error(`job ${jobId} still ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
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
