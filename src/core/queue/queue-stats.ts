import { getQueueToken } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Queue } from 'bullmq';
import { ALL_QUEUES, QueueName } from './queue-names';

export const QUEUE_JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
export type QueueJobState = (typeof QUEUE_JOB_STATES)[number];
export type QueueCounts = { queue: QueueName } & Record<QueueJobState, number>;

/** How many jobs each queue holds, by state: for the metrics and the staff queue view. */
@Injectable()
export class QueueStats {
  constructor(private readonly moduleRef: ModuleRef) {}

  async counts(): Promise<QueueCounts[]> {
    return Promise.all(
      ALL_QUEUES.map(async (name) => {
        const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
        const counts = await queue.getJobCounts(...QUEUE_JOB_STATES);
        const byState = Object.fromEntries(QUEUE_JOB_STATES.map((state) => [state, counts[state] ?? 0]));
        return { queue: name, ...byState } as QueueCounts;
      }),
    );
  }
}
