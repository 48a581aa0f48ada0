import { Logger } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { redisConnectionOptions } from '../redis/redis-connection';
import { QueueName } from './queue-names';

/**
 * A BullMQ worker for one queue, configured from AppConfig (concurrency, lock duration, stalled
 * check). `close()` stops taking jobs and waits for the ones in flight; a job interrupted harder
 * than that (SIGKILL) keeps its lock until it expires and is then taken over by another worker.
 */
export function startQueueWorker<T>(
  config: AppConfig,
  queue: QueueName,
  handler: (job: Job<T>) => Promise<void>,
  options: { concurrency?: number } = {},
): Worker<T> {
  const logger = new Logger(`Worker:${queue}`);
  const worker = new Worker<T>(queue, handler, {
    connection: { ...redisConnectionOptions(config), maxRetriesPerRequest: null },
    prefix: `${config.redis.keyPrefix}:bull`,
    concurrency: options.concurrency ?? config.worker.concurrency,
    lockDuration: config.worker.lockDurationMs,
    stalledInterval: config.worker.stalledIntervalMs,
    maxStalledCount: 3,
  });
  worker.on('error', (error) => logger.warn(`Worker error: ${error.message}`));
  worker.on('failed', (job, error) => logger.warn(`Job ${job?.id ?? '?'} failed: ${error.message}`));
  return worker;
}
