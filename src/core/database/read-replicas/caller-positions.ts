import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { withTimeout } from '../../async/with-timeout';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/app-config.token';
import { REDIS_CLIENT } from '../../redis/redis.module';
import { parseLsn } from './lsn';
import { CallerPosition } from './read-routing.policy';

const REDIS_TIMEOUT_MS = 500;

/**
 * Keeps the later of the stored and the given position (16 hex digits: text order is WAL order),
 * so two requests of one caller finishing out of order never move it back; renews the expiry.
 */
const KEEP_LATEST = `
local current = redis.call('GET', KEYS[1])
if not current or current < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
else
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/**
 * Each caller's last commit position (WAL LSN) in Redis, for READ_YOUR_WRITES_TTL_SECONDS: shared
 * by every API process and worker, so a write through one process is seen by reads through any.
 */
@Injectable()
export class CallerPositions {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async remember(caller: string, lsn: string): Promise<void> {
    const padded = parseLsn(lsn).toString(16).padStart(16, '0');
    await withTimeout(
      this.redis.eval(KEEP_LATEST, 1, key(caller), padded, this.config.database.readYourWritesTtlSeconds),
      REDIS_TIMEOUT_MS,
      'Redis',
    );
  }

  /** The caller's last position; `unknown` when Redis does not answer in time. */
  async positionOf(caller: string): Promise<CallerPosition> {
    try {
      const stored = await withTimeout(this.redis.get(key(caller)), REDIS_TIMEOUT_MS, 'Redis');
      return stored ? { kind: 'at', lsn: BigInt(`0x${stored}`) } : { kind: 'none' };
    } catch {
      return { kind: 'unknown' };
    }
  }
}

function key(caller: string): string {
  return `read-your-writes:${caller}`;
}
