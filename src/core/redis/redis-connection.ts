import Redis, { RedisOptions } from 'ioredis';
import { AppConfig } from '../config/app-config';

/**
 * Connection options from REDIS_URL. Reconnects forever with a capped back-off, so the service
 * recovers by itself when Redis comes back; commands fail fast instead of queueing for minutes.
 */
export function redisConnectionOptions(config: AppConfig): RedisOptions {
  const url = new URL(config.redis.url);
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 6379,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: Number.isInteger(db) ? db : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    connectTimeout: 5000,
    // A socket that never connected does not emit `close` on end(); destroy it soon after.
    disconnectTimeout: 500,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  };
}

export function createRedisClient(config: AppConfig, extra: RedisOptions = {}): Redis {
  return new Redis({ ...redisConnectionOptions(config), maxRetriesPerRequest: 2, ...extra });
}
