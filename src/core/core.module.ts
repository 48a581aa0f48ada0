import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './config/app-config';
import { AppConfigModule } from './config/app-config.module';
import { DatabaseModule } from './database/database.module';
import { LoggingModule } from './logging/logging.module';
import { QueueModule } from './queue/queue.module';
import { RedisModule } from './redis/redis.module';

/** The plumbing shared by the API and the worker: config, logs, PostgreSQL, Redis, queues. */
@Module({})
export class CoreModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [AppConfigModule.forRoot(config), LoggingModule, DatabaseModule, RedisModule, QueueModule],
      exports: [AppConfigModule, DatabaseModule, RedisModule, QueueModule],
    };
  }
}
