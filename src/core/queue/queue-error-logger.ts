import { getQueueToken } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Queue } from 'bullmq';
import { withTimeout } from '../async/with-timeout';
import { ALL_QUEUES } from './queue-names';

/** How long shutdown waits for a queue's Redis connection that is still being set up. */
const SETTLE_MS = 2000;

/**
 * A BullMQ Queue emits `error` when Redis is unreachable; an EventEmitter without a listener
 * would turn that into an uncaught exception. Log it instead: readiness reports Redis as down.
 *
 * And before the queues close, let a connection still being set up finish (or fail) while this
 * listener hears it: BullMQ 5 closes an initialising connection by disconnecting it and removing
 * every listener, after which the failed set-up is emitted as `error` to nobody, an unhandled
 * rejection at shutdown (seen when Redis had just come back, or never answered).
 */
@Injectable()
export class QueueErrorLogger implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Queue');
  private queues: Queue[] = [];

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    this.queues = ALL_QUEUES.map((name) => {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      queue.on('error', (error: Error) => this.logger.warn(`Queue ${name}: ${error.message}`));
      return queue;
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    const settled = Promise.allSettled(this.queues.map((queue) => queue.waitUntilReady()));
    await withTimeout(settled, SETTLE_MS, 'Redis').catch(() => undefined);
  }
}
