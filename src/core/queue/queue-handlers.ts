import { BullRegistrar } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ALL_QUEUES, QueueName } from './queue-names';
import { processorQueue } from './queue-processor';

/** What is wrong with a set of handlers: every queue needs exactly one, and no handler may serve an unknown queue. */
export function queueHandlerProblems(
  handlers: readonly { name: string; queue: string }[],
  queues: readonly string[] = ALL_QUEUES,
): string[] {
  const problems: string[] = [];
  for (const queue of queues) {
    const names = handlers.filter((handler) => handler.queue === queue).map((handler) => handler.name);
    if (names.length === 0) problems.push(`queue "${queue}" has no handler`);
    if (names.length > 1) problems.push(`queue "${queue}" has ${names.length} handlers (${names.join(', ')})`);
  }
  for (const handler of handlers) {
    if (!queues.includes(handler.queue)) problems.push(`${handler.name} handles unknown queue "${handler.queue}"`);
  }
  return problems;
}

/**
 * Worker start-up: checks that every queue the API enqueues to (ALL_QUEUES, the queues it
 * registers) has exactly one processor in this process, then starts the BullMQ workers. Consumers
 * are registered manually (QueueModule sets `manualRegistration`), so the API, which has no such
 * provider, never consumes, and a worker missing a handler fails before it takes any job.
 */
@Injectable()
export class QueueHandlers implements OnModuleInit {
  private readonly logger = new Logger('Queues');

  constructor(
    private readonly discoveryService: DiscoveryService,
    private readonly registrar: BullRegistrar,
  ) {}

  onModuleInit(): void {
    const handlers = this.discoveryService
      .getProviders()
      .map((wrapper) => ({ name: String(wrapper.name), queue: processorQueue(wrapper.metatype) }))
      .filter((handler): handler is { name: string; queue: QueueName } => handler.queue !== undefined);
    const problems = queueHandlerProblems(handlers);
    if (problems.length) throw new Error(`Queue handlers are incomplete: ${problems.join('; ')}.`);
    this.registrar.register();
    this.logger.log(`Consuming ${handlers.map((handler) => handler.queue).join(', ')}`);
  }
}
