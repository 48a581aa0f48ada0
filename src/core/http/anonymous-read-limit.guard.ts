import {
  CanActivate,
  ExecutionContext,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  OnModuleDestroy,
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
import { ApiError } from './api-error';
import { ErrorBody } from './error-body';
import { SharedWindowCounter } from './shared-window-counter';

const MINUTE_MS = 60_000;
/** How often each process adds its counts to Redis; the others' hits are known this late at most. */
const FLUSH_MS = 1_000;

/**
 * The anonymous-read counts of this process, one per process (a provider of CoreModule): counted in
 * memory, added to Redis every second so every API process counts the same requests. No Redis
 * round trip on the request path, and a slow or absent Redis never delays or fails a read.
 */
@Injectable()
export class AnonymousReadCounter implements OnModuleDestroy {
  private readonly logger = new Logger(AnonymousReadCounter.name);
  readonly counter: SharedWindowCounter;

  constructor(@Inject(REDIS_CLIENT) redis: Redis) {
    this.counter = new SharedWindowCounter(redis, 'anonymous-read', MINUTE_MS, FLUSH_MS, (error) =>
      this.logger.warn(`Anonymous read counts not shared: ${error.message}`),
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.counter.stop();
    await withTimeout(this.counter.flush(), REDIS_WAIT_MS, 'Redis').catch(() => undefined);
  }
}

/** A final flush must not hold up shutdown when Redis is gone. */
const REDIS_WAIT_MS = 500;

/**
 * Per-IP limit on expensive reads by anonymous callers (ANONYMOUS_RATE_LIMIT_PER_MINUTE; 0 turns
 * it off), in fixed one-minute windows. Callers with a token are not counted here. Every API
 * process counts the same requests (AnonymousReadCounter); behind a proxy TRUST_PROXY must name the
 * proxy or every client shares the proxy's address and one bucket.
 */
@Injectable()
export class AnonymousReadLimitGuard implements CanActivate {
  constructor(
    @InjectAppConfig() private readonly config: AppConfig,
    private readonly counts: AnonymousReadCounter,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const limit = this.config.http.anonymousReadsPerMinute;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (limit === 0 || request.user || request.uncheckedCaller) return true;
    const { hits, resetInMs } = this.counts.counter.hit(request.ip ?? 'unknown', Date.now());
    if (hits <= limit) return true;
    const retryAfter = String(Math.max(1, Math.ceil(resetInMs / 1000)));
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
