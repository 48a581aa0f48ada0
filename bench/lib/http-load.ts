import autocannon from 'autocannon';
import { CpuShare, LoadHooks } from './cpu-monitor';
import { LatencySummary, summariseLatencies } from './percentiles';

export interface HttpLoadOptions {
  /** Base URL, e.g. http://127.0.0.1:3001 (paths come from `requests`). */
  url: string;
  connections: number;
  /** Measured seconds (ignored when `amount` is set). */
  durationSeconds?: number;
  /** Measured number of requests instead of a duration. */
  amount?: number;
  /** Run first and thrown away: connections opened, JIT and PostgreSQL caches warm. */
  warmup: { durationSeconds?: number; amount?: number };
  headers?: Record<string, string>;
  /** The request sequence each connection loops over; a `setupRequest` varies path or body per request. */
  requests: autocannon.Request[];
  hooks?: LoadHooks;
  /** Seconds without an answer before a request counts as an error (default 30). */
  timeoutSeconds?: number;
  /** Ends the measured run early when it settles (e.g. a job completing), whatever the duration. */
  until?: Promise<unknown>;
  /** The answers that count as served (default: 2xx); e.g. only 304 when revalidating with `If-None-Match`. */
  served?: (statusCode: number) => boolean;
}

export interface HttpLoadResult {
  /** Responses received in the measured run. */
  responses: number;
  /** Responses served as expected (2xx unless `served` says otherwise). */
  ok: number;
  /** The other responses, by status code. */
  failures: Record<string, number>;
  /** Connection errors and timeouts (no response at all). */
  errors: number;
  seconds: number;
  /** Served responses per second. */
  okPerSecond: number;
  /** Latency of the served answers (request written to response complete), exact percentiles. */
  latency: LatencySummary;
  /** CPU shares during the measured run, when the hooks watch them. */
  cpu?: CpuShare;
}

async function fire(
  options: HttpLoadOptions,
  measured: boolean,
  limits: { duration?: number; amount?: number; until?: Promise<unknown> },
) {
  const served = options.served ?? ((statusCode: number) => statusCode >= 200 && statusCode < 300);
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let ok = 0;
  const instance = autocannon(
    {
      url: options.url,
      connections: options.connections,
      duration: limits.duration ?? 10,
      amount: limits.amount,
      headers: options.headers,
      requests: options.requests,
      // A closed loop: each connection sends its next request when the previous one is answered.
      pipelining: 1,
      timeout: options.timeoutSeconds ?? 30,
    },
    () => undefined,
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (!measured) return;
    // Latencies of answers only: quick refusals (429, 503) would make the percentiles look good.
    if (served(statusCode)) {
      ok += 1;
      latencies.push(responseTime);
    } else failures[statusCode] = (failures[statusCode] ?? 0) + 1;
  });
  const stop = () => instance.stop();
  limits.until?.then(stop, stop);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    instance.on('done', resolve);
    instance.on('error', reject);
  });
  return { result, latencies, failures, ok };
}

/**
 * Runs autocannon in this process: a warm-up, then the measured run. Latencies come from
 * autocannon's per-response event, so p50 and p95 are exact rather than read off its histogram
 * (which reports p90 and p97.5 but not p95).
 */
export async function runHttpLoad(options: HttpLoadOptions): Promise<HttpLoadResult> {
  await options.hooks?.beforeWarmup?.();
  if (options.warmup.durationSeconds || options.warmup.amount) {
    await fire(options, false, { duration: options.warmup.durationSeconds, amount: options.warmup.amount });
  }
  const watch = options.hooks?.watch?.();
  const { result, latencies, failures, ok } = await fire(options, true, {
    duration: options.durationSeconds,
    amount: options.amount,
    until: options.until,
  });
  const cpu = await watch?.stop();
  const seconds = result.duration;
  return {
    cpu,
    responses: ok + Object.values(failures).reduce((sum, count) => sum + count, 0),
    ok,
    failures,
    errors: result.errors,
    seconds,
    okPerSecond: ok / seconds,
    latency: summariseLatencies(latencies),
  };
}
