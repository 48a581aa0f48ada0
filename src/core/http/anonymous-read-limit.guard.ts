import {
  CanActivate,
  ExecutionContext,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  UseGuards,
  applyDecorators,
} from '@nestjs/common';
import { ApiTooManyRequestsResponse } from '@nestjs/swagger';
import Redis from 'ioredis';
import { withTimeout } from '../async/with-timeout';
import { AuthenticatedRequest } from '../auth/authenticated-user';
import { AppConfig } from '../config/app-config';
import { InjectAppConfig } from '../config/app-config.token';
import { REDIS_CLIENT } from '../redis/redis.module';
import { RedisThrottlerStorage } from '../redis/redis-throttler.storage';
import { ApiError } from './api-error';
import { ErrorBody } from './error-body';

const MINUTE_MS = 60_000;
/** A rate limit must never be why a read fails: when Redis is slow or down, the request goes on. */
const REDIS_WAIT_MS = 500;

/**
 * Per-IP limit on expensive reads by anonymous callers (ANONYMOUS_RATE_LIMIT_PER_MINUTE; 0 turns
 * it off). Callers with a token are not counted here. The counters live in Redis, so every
 * replica counts the same requests; behind a proxy TRUST_PROXY must be set or every client
 * shares the proxy's address and one bucket.
 */
@Injectable()
export class AnonymousReadLimitGuard implements CanActivate {
  private readonly logger = new Logger(AnonymousReadLimitGuard.name);
  private readonly storage: RedisThrottlerStorage;

  constructor(
    @InjectAppConfig() private readonly config: AppConfig,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.storage = new RedisThrottlerStorage(redis);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const limit = this.config.http.anonymousReadsPerMinute;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (limit === 0 || request.user) return true;
    let record;
    try {
      record = await withTimeout(
        this.storage.increment(request.ip ?? 'unknown', MINUTE_MS, limit, MINUTE_MS, 'anonymous-read'),
        REDIS_WAIT_MS,
        'Redis',
      );
    } catch (error) {
      this.logger.warn(`Anonymous read limit not applied: ${(error as Error).message}`);
      return true;
    }
    if (!record.isBlocked) return true;
    const retryAfter = String(Math.max(1, record.timeToBlockExpire));
    throw new ApiError(
      HttpStatus.TOO_MANY_REQUESTS,
      `Too many requests from your address; try again in ${retryAfter} seconds, or sign in.`,
      {},
      { 'Retry-After': retryAfter },
    );
  }
}

/** Applies AnonymousReadLimitGuard to a route and documents its 429. */
export const AnonymousReadLimit = () =>
  applyDecorators(
    UseGuards(AnonymousReadLimitGuard),
    ApiTooManyRequestsResponse({
      type: ErrorBody,
      description: 'Anonymous callers over ANONYMOUS_RATE_LIMIT_PER_MINUTE from one address; see `Retry-After`.',
    }),
  );
