import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { REDIS_CLIENT } from '../../core/redis/redis.module';
import { DoiPriority } from './doi-priority';

const WINDOW_MS = 5 * 60_000;
/** Requests are counted in buckets of this size for "used in the last 5 minutes". */
const BUCKET_MS = 10_000;
const BUCKETS = WINDOW_MS / BUCKET_MS;

/** Requests at most that may go back to back after a lull (a round's claim, a slow answer). */
const LONGEST_BURST = 10;

/**
 * The pace of a budget of `perFiveMinutes`: a burst of up to 1 % of it (at most LONGEST_BURST), and
 * one request per interval, the interval chosen so that burst and pace together never put more
 * than the budget into any 5-minute window, fixed or sliding.
 */
export function budgetPacing(perFiveMinutes: number): { intervalUs: number; burst: number } {
  const burst = Math.min(LONGEST_BURST, Math.floor(perFiveMinutes / 100));
  return { intervalUs: Math.ceil((WINDOW_MS * 1000) / (perFiveMinutes - burst)), burst };
}

/**
 * Takes one request from the budget if it conforms now (GCRA: each budget keeps the theoretical
 * arrival time of its next request, and a request conforms up to `burst` intervals before it).
 * KEYS: the shared arrival time, the bulk one, the counter bucket of this request. ARGV: the shared
 * interval and tolerance, the bulk ones (interval 0 for interactive work), in microseconds; the
 * keys' life in milliseconds. Answers 0 when taken, else the microseconds to wait (nothing taken).
 * Redis's clock, so workers on different machines agree; `%.0f` because Lua's tostring would
 * round microsecond timestamps.
 */
const TAKE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local shared = tonumber(redis.call('GET', KEYS[1]) or '0')
local wait = shared - tonumber(ARGV[2]) - now
local bulkInterval = tonumber(ARGV[3])
local bulk = 0
if bulkInterval > 0 then
  bulk = tonumber(redis.call('GET', KEYS[2]) or '0')
  wait = math.max(wait, bulk - tonumber(ARGV[4]) - now)
end
if wait > 0 then return wait end
redis.call('SET', KEYS[1], string.format('%.0f', math.max(shared, now) + tonumber(ARGV[1])), 'PX', ARGV[5])
if bulkInterval > 0 then
  redis.call('SET', KEYS[2], string.format('%.0f', math.max(bulk, now) + bulkInterval), 'PX', ARGV[5])
end
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
return 0
`;

/**
 * Nothing goes before now + ARGV[1] ms (a pause never shortens one already set): the shared
 * arrival time moves past it by the tolerance ARGV[2] (µs). Answers the end of the pause (µs).
 */
const PAUSE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local arrival = now + tonumber(ARGV[1]) * 1000 + tonumber(ARGV[2])
local shared = tonumber(redis.call('GET', KEYS[1]) or '0')
if arrival > shared then
  redis.call('SET', KEYS[1], string.format('%.0f', arrival), 'PX', tonumber(ARGV[1]) + ${WINDOW_MS})
end
return math.max(arrival, shared) - tonumber(ARGV[2])
`;

export interface BudgetUse {
  /** DataCite requests per 5 minutes, all of them / bulk ones. */
  requests_per_5_min: number;
  bulk_requests_per_5_min: number;
  /** Requests made in the last 5 minutes (by every worker), all of them / bulk ones. */
  used_last_5_min: number;
  bulk_used_last_5_min: number;
  /** Samples DataCite accepted in the last 5 minutes. */
  delivered_last_5_min: number;
  /** Set while DataCite is unreachable or asked to wait (429 Retry-After): no request before then. */
  paused_until: string | null;
}

/**
 * The DataCite request budget every worker process shares (issue 27): DATACITE_REQUESTS_PER_5_MIN
 * for all requests, of which at most DATACITE_BULK_REQUESTS_PER_5_MIN for bulk work, so the rest
 * is always there for interactive changes. Requests are paced evenly (one per 300 s / budget), and
 * a pause — DataCite down, or 429 with Retry-After — holds every worker until its end.
 */
@Injectable()
export class DataCiteBudget {
  private readonly shared: { intervalUs: number; toleranceUs: number };
  private readonly bulk: { intervalUs: number; toleranceUs: number };

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {
    const pace = (perFiveMinutes: number) => {
      const { intervalUs, burst } = budgetPacing(perFiveMinutes);
      return { intervalUs, toleranceUs: intervalUs * burst };
    };
    this.shared = pace(config.datacite?.requestsPer5Min ?? 1);
    this.bulk = pace(config.datacite?.bulkRequestsPer5Min ?? 1);
  }

  /** Requests per second a priority may make at most (the claim size of a round follows it). */
  ratePerSecond(priority: DoiPriority): number {
    return 1e6 / (priority === 'bulk' ? this.bulk.intervalUs : this.shared.intervalUs);
  }

  /** Takes one request now, or says how many milliseconds until one could be taken (0: taken). */
  async take(priority: DoiPriority): Promise<number> {
    const bulk = priority === 'bulk';
    const waitUs = (await this.redis.eval(
      TAKE_SCRIPT,
      3,
      'datacite:budget:next',
      'datacite:budget:next-bulk',
      this.bucketKey(bulk ? 'bulk' : 'interactive', Date.now()),
      String(this.shared.intervalUs),
      String(this.shared.toleranceUs),
      String(bulk ? this.bulk.intervalUs : 0),
      String(this.bulk.toleranceUs),
      String(WINDOW_MS + BUCKET_MS),
    )) as number;
    return waitUs > 0 ? Math.ceil(waitUs / 1000) : 0;
  }

  /** No worker sends anything for `ms` (or longer, if a pause already reaches further). */
  async pause(ms: number): Promise<Date> {
    const untilUs = (await this.redis.eval(
      PAUSE_SCRIPT,
      1,
      'datacite:budget:next',
      String(Math.ceil(ms)),
      String(this.shared.toleranceUs),
    )) as number;
    return new Date(Math.floor(untilUs / 1000));
  }

  /** Milliseconds until the next request of any priority may go (0: now). */
  async pausedForMs(): Promise<number> {
    const [[, time], [, next]] = (await this.redis.multi().time().get('datacite:budget:next').exec()) as [
      [null, [string, string]],
      [null, string | null],
    ];
    const nowUs = Number(time[0]) * 1e6 + Number(time[1]);
    return next ? Math.max(0, Math.ceil((Number(next) - this.shared.toleranceUs - nowUs) / 1000)) : 0;
  }

  /** Consecutive rounds that only earned retries, across workers: the next pause doubles with it. */
  async recordOutage(): Promise<number> {
    const [[, count]] = (await this.redis
      .multi()
      .incr('datacite:outage')
      .pexpire('datacite:outage', 3_600_000)
      .exec()) as [[null, number]];
    return count;
  }

  async endOutage(): Promise<void> {
    await this.redis.del('datacite:outage');
  }

  async countDelivered(n: number): Promise<void> {
    if (!n) return;
    const key = this.bucketKey('delivered', Date.now());
    await this.redis
      .multi()
      .incrby(key, n)
      .pexpire(key, WINDOW_MS + BUCKET_MS)
      .exec();
  }

  async use(): Promise<BudgetUse> {
    const now = Date.now();
    const sum = async (kind: string) => {
      const keys = Array.from({ length: BUCKETS }, (_, i) => this.bucketKey(kind, now - i * BUCKET_MS));
      return (await this.redis.mget(...keys)).reduce((total, value) => total + Number(value ?? 0), 0);
    };
    const [interactive, bulk, delivered, pausedMs] = await Promise.all([
      sum('interactive'),
      sum('bulk'),
      sum('delivered'),
      this.pausedForMs(),
    ]);
    const datacite = this.config.datacite;
    return {
      requests_per_5_min: datacite?.requestsPer5Min ?? 0,
      bulk_requests_per_5_min: datacite?.bulkRequestsPer5Min ?? 0,
      used_last_5_min: interactive + bulk,
      bulk_used_last_5_min: bulk,
      delivered_last_5_min: delivered,
      // A pause shorter than one request interval is just the pacing.
      paused_until: pausedMs * 1000 > this.shared.intervalUs ? new Date(now + pausedMs).toISOString() : null,
    };
  }

  private bucketKey(kind: string, at: number): string {
    return `datacite:budget:${kind}:${Math.floor(at / BUCKET_MS)}`;
  }
}
