import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/app-config.token';
import { createRedisClient } from './redis-connection';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** The shared Redis client for rate limits, the token revocation list and health checks. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        const logger = new Logger('Redis');
        const client = createRedisClient(config, { keyPrefix: `${config.redis.keyPrefix}:` });
        client.on('error', (error: Error) => logger.warn(`Redis connection error: ${error.message}`));
        return client;
      },
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    // quit() waits for a reply; a client that is not connected would keep reconnecting meanwhile.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}
