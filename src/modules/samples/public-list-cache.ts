import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { Counter } from 'prom-client';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { MicroCache, MicroCacheResult } from '../../core/http/micro-cache';
import { publicBaseUrl } from '../../core/http/public-address';
import { Metrics } from '../../core/metrics/metrics';

/** A searched page: its tag, and its body when asked for (a current If-None-Match needs none). */
export interface ListPage<T> {
  etag: string;
  page: () => T;
}

/** An anonymous list answer: its tag and its JSON body, byte for byte what `res.json` would send. */
export interface PublicListAnswer {
  etag: string;
  json: () => string;
}

/** What is kept: the body serialised once. */
interface KeptAnswer {
  etag: string;
  json: string;
}

/** Distinct anonymous list URLs kept at once. */
const MAX_ENTRIES = 1_000;
/**
 * Characters of bodies kept at once (~32 MB at most, bodies being ASCII JSON almost always). A page
 * of 25 is about 50 thousand characters (the bench's samples), so some 640 of them fit.
 */
const MAX_TOTAL_CHARACTERS = 32 * 1024 * 1024;
/** A larger body (more than about 120 samples) is answered but not kept: much memory for a URL few repeat. */
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
  private readonly cache: MicroCache<KeptAnswer>;
  private readonly requests: Counter<'result'>;
  private readonly publicUrl: string | null;

  constructor(@InjectAppConfig() config: AppConfig, clock: Clock, metrics: Metrics) {
    this.publicUrl = config.publicUrl;
    this.cache = new MicroCache<KeptAnswer>({
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
        'the same URL), miss (searched); text searches (never kept) and LIST_CACHE_SECONDS=0 not counted',
      labelNames: ['result'],
      registers: [metrics.registry],
    });
  }

  /**
   * The anonymous answer to `req`: kept, joined, or from `search()`. Kept answers are serialised
   * when searched; with the cache off, or for an answer not to be kept (`keep` false), the body is
   * serialised only if it is sent.
   */
  async answer<T>(req: Request, search: () => Promise<ListPage<T>>, keep = true): Promise<PublicListAnswer> {
    if (!this.cache.enabled || !keep) {
      const { etag, page } = await search();
      return { etag, json: () => JSON.stringify(page()) };
    }
    const key = `${publicBaseUrl(this.publicUrl, req)}${req.originalUrl}`;
    // A miss is counted when its search starts, so one that fails (a bad parameter: 400) counts too.
    const { value, result } = await this.cache.get(key, async () => {
      this.requests.inc({ result: 'miss' satisfies MicroCacheResult });
      const { etag, page } = await search();
      return { etag, json: JSON.stringify(page()) };
    });
    if (result !== 'miss') this.requests.inc({ result });
    return { etag: value.etag, json: () => value.json };
  }
}
