import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';
import { AppConfig } from './config/app-config';
import { AppConfigModule } from './config/app-config.module';
import { DatabaseModule } from './database/database.module';
import { AnonymousReadCounter } from './http/anonymous-read-limit.guard';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';

/** The plumbing shared by the API and the worker: config, logs, PostgreSQL, Redis, queues, metrics. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        AppConfigModule.forRoot(config),
        LoggingModule,
        DatabaseModule,
        RedisModule,
        QueueModule,
        MetricsModule,
      ],
      providers: [{ provide: Clock, useClass: SystemClock }, AnonymousReadCounter],
      exports: [AppConfigModule, DatabaseModule, RedisModule, QueueModule, MetricsModule, Clock, AnonymousReadCounter],
    };
  }
}
