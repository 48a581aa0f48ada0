import { Processor } from '@nestjs/bullmq';
import { applyDecorators, Provider, SetMetadata, Type } from '@nestjs/common';
import type { Job, WorkerOptions } from 'bullmq';
import { AppConfig } from '../config/app-config';
import { QueueName } from './queue-names';

const QUEUE_OF_PROCESSOR = 'sr:queue-of-processor';

/** A concrete WorkerHost subclass. */
export type ProcessorClass = Type<{ process(job: Job, token?: string): Promise<unknown> }>;

/**
 * Marks a WorkerHost as the handler of one queue: a BullMQ `@Processor`. Register it with
 * `processorProvider` (worker module only), which adds the worker options from the configuration.
 */
export const QueueProcessor = (queue: QueueName): ClassDecorator =>
  applyDecorators(Processor(queue), SetMetadata(QUEUE_OF_PROCESSOR, queue));

/** The queue a class handles, if it is a QueueProcessor. */
export function processorQueue(type: unknown): QueueName | undefined {
  return typeof type === 'function'
    ? (Reflect.getMetadata(QUEUE_OF_PROCESSOR, type) as QueueName | undefined)
    : undefined;
}

/** Worker settings from AppConfig: jobs run at once, lock duration, stalled-job check. */
export function workerOptions(
  config: AppConfig,
): Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return {
    concurrency: config.worker.concurrency,
    lockDuration: config.worker.lockDurationMs,
    stalledInterval: config.worker.stalledIntervalMs,
    maxStalledCount: 3,
  };
}

/**
 * The provider of a processor with its worker options. `@Processor` options are static metadata,
 * while ours come from the environment at start-up: a subclass carries them, so nothing global is
 * rewritten and two apps with different settings can live in one process (tests).
 */
export function processorProvider(processor: ProcessorClass, config: AppConfig): Provider {
  const queue = processorQueue(processor);
  if (!queue) throw new Error(`${processor.name} is not decorated with @QueueProcessor.`);

  @Processor(queue, workerOptions(config))
  class ConfiguredProcessor extends processor {}
  Object.defineProperty(ConfiguredProcessor, 'name', { value: processor.name });
  return { provide: processor, useClass: ConfiguredProcessor };
}
