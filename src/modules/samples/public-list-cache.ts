import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Counter } from 'prom-client';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { MicroCache, MicroCacheResult } from '../../core/http/micro-cache';
import { publicBaseUrl } from '../../core/http/public-address';
import { Metrics } from '../../core/metrics/metrics';

/** An anonymous list answer as sent: its tag and its body, serialised once. */
export interface PublicListAnswer {
  etag: string;
  /** The JSON body, byte for byte what `res.json` would have sent. */
  json: string;
}

/** Distinct anonymous list URLs kept at once. */
const MAX_ENTRIES = 1_000;
/**
 * Characters of bodies kept at once (~32 MB at worst). A page of 25 is some 25-40 thousand
 * characters, so the entry bound comes first unless many large pages are asked for.
 */
const MAX_TOTAL_CHARACTERS = 32 * 1024 * 1024;
/** A larger body (about 150-250 samples and more) is answered but not kept: memory for one URL few repeat. */
const MAX_ENTRY_CHARACTERS = 256 * 1024;

/**
 * Anonymous list pages (`GET /api/samples/…` without a token), kept for LIST_CACHE_SECONDS in this
 * process so that repeats within that time, and concurrent misses, skip the search's statements.
 * Anonymous pages already say `Cache-Control: public, max-age=…`: any shared cache may serve them
 * that old, so one that lives at most as long (never longer than max-age) promises nothing new.
 *
 * Keyed by what decides the body: the public base URL (links in the body) and the request's URL as
 * sent (query and all; nothing is normalised). Only callers without a token: with one the page
 * depends on who asks (scope, `can_edit`).
 */
@Injectable()
export class PublicListCache {
  private readonly cache: MicroCache<PublicListAnswer>;
  private readonly requests: Counter<'result'>;
  private readonly publicUrl: string | null;

  constructor(@InjectAppConfig() config: AppConfig, clock: Clock, metrics: Metrics) {
    this.publicUrl = config.publicUrl;
    this.cache = new MicroCache<PublicListAnswer>({
      ttlMs: 1000 * Math.min(config.http.listCacheSeconds, config.http.cacheMaxAgeSeconds),
      maxEntries: MAX_ENTRIES,
      maxTotalWeight: MAX_TOTAL_CHARACTERS,
      maxEntryWeight: MAX_ENTRY_CHARACTERS,
      weigh: (answer) => answer.json.length,
      now: () => clock.now().getTime(),
    });
    this.requests = new Counter({
      name: 'list_cache_requests_total',
      help:
        'Anonymous sample list requests by how they were answered: hit (a kept page), joined (a load in flight for ' +
        'the same URL), miss (searched); not counted when LIST_CACHE_SECONDS is 0',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
  }

  /** The anonymous answer to `req`: kept, joined, or from `build()` (which runs the search). */
  async answer(req: Request, build: () => Promise<PublicListAnswer>): Promise<PublicListAnswer> {
    if (!this.cache.enabled) return build();
    const key = `${publicBaseUrl(this.publicUrl, req)}${req.originalUrl}`;
    // A miss is counted when its search starts, so one that fails (a bad parameter: 400) counts too.
    const { value, result } = await this.cache.get(key, () => {
      this.requests.inc({ result: 'miss' satisfies MicroCacheResult });
      return build();
    });
    if (result !== 'miss') this.requests.inc({ result });
    return value;
  }
}
