import { CpuShare, LoadHooks } from './cpu-monitor';
import { LatencySummary, summariseLatencies } from './percentiles';

export interface SqlLoadOptions {
  /** Clients running the operation at once, each in a closed loop like an HTTP connection. */
  concurrency: number;
  durationSeconds?: number;
  /** A fixed number of operations instead of a duration. */
  amount?: number;
  warmup: { durationSeconds?: number; amount?: number };
  /** One operation (one or more statements); `n` counts operations from 0 across all clients. */
  operation: (n: number) => Promise<unknown>;
  hooks?: LoadHooks;
}

export interface SqlLoadResult {
  operations: number;
  seconds: number;
  perSecond: number;
  latency: LatencySummary;
  cpu?: CpuShare;
}

async function loop(options: SqlLoadOptions, limits: { durationSeconds?: number; amount?: number }) {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + (limits.durationSeconds ?? 10) * 1000;
  let issued = 0;
  const more = () => (limits.amount !== undefined ? issued < limits.amount : performance.now() < deadline);
  const client = async () => {
    while (more()) {
      const n = issued++;
      const begin = performance.now();
      await options.operation(n);
      latencies.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/**
 * The SQL side of a comparison: the same statements the API would run, at the same concurrency,
 * straight through a pg Pool from this process (a warm-up first, then the measured run).
 */
export async function runSqlLoad(options: SqlLoadOptions): Promise<SqlLoadResult> {
  await options.hooks?.beforeWarmup?.();
  await loop(options, options.warmup);
  const watch = options.hooks?.watch?.();
  const { latencies, seconds } = await loop(options, {
    durationSeconds: options.durationSeconds,
    amount: options.amount,
  });
  const cpu = await watch?.stop();
  return {
    cpu,
    operations: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    latency: summariseLatencies(latencies),
  };
}
