import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { redisConnectionOptions } from '../redis/redis-connection';
import { QueueErrorLogger } from './queue-error-logger';
import { ALL_QUEUES, DEFAULT_JOB_OPTIONS } from './queue-names';
import { QueueStats } from './queue-stats';

/**
 * One BullMQ connection setup for producers (API) and consumers (worker). BullMQ needs
 * `maxRetriesPerRequest: null` on its blocking connections; keys live under the configured prefix.
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        connection: { ...redisConnectionOptions(config), maxRetriesPerRequest: null },
        prefix: `${config.redis.keyPrefix}:bull`,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      }),
      // Workers start only in the worker process, after QueueHandlers has checked them.
      extraOptions: { manualRegistration: true },
    }),
    BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
  ],
  providers: [QueueErrorLogger, QueueStats],
  exports: [BullModule, QueueStats],
})
export class QueueModule {}
