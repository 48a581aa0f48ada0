import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Queue } from 'bullmq';
import { ALL_QUEUES } from './queue-names';

/**
 * A BullMQ Queue emits `error` when Redis is unreachable; an EventEmitter without a listener
 * would turn that into an uncaught exception. Log it instead: readiness reports Redis as down.
 */
@Injectable()
export class QueueErrorLogger implements OnModuleInit {
  private readonly logger = new Logger('Queue');

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    for (const name of ALL_QUEUES) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      queue.on('error', (error: Error) => this.logger.warn(`Queue ${name}: ${error.message}`));
    }
  }
}
