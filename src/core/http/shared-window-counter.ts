import type Redis from 'ioredis';

/** Distinct keys one window may hold in memory; beyond, keys already flushed are forgotten first. */
const MAX_KEYS = 100_000;

interface Entry {
  /** The window's total in Redis (every process's hits) as of this process's last flush. */
  shared: number;
  /** Hits counted here and not yet added to Redis. */
  pending: number;
}

/**
 * Fixed-window hit counts shared by every API process, without a Redis round trip per hit: each
 * process counts in memory and adds its counts to Redis in the background (every `flushMs`),
 * reading back the window's total. A process therefore knows its own hits exactly and the others'
 * as of the last flush: across N processes a caller may exceed the limit by what the others
 * counted in the last `flushMs`. When Redis is down, each process still limits on its own counts.
 */
export class SharedWindowCounter {
  private window = -1;
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly name: string,
    private readonly windowMs: number,
    private readonly flushMs: number,
    private readonly onFlushError: (error: Error) => void,
  ) {}

  /** Counts one hit of `key`; answers the window's hits as far as this process knows, with its end. */
  hit(key: string, now: number): { hits: number; resetInMs: number } {
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.entries.clear();
    }
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= MAX_KEYS) this.forgetFlushed();
      entry = { shared: 0, pending: 0 };
      this.entries.set(key, entry);
    }
    entry.pending += 1;
    this.scheduleFlush();
    return { hits: entry.shared + entry.pending, resetInMs: (window + 1) * this.windowMs - now };
  }

  /** Adds what is pending to Redis now (also on shutdown, so the other processes see it). */
  async flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.flushing;
    const window = this.window;
    const due = [...this.entries].filter(([, entry]) => entry.pending > 0);
    if (due.length === 0) return;
    const sent = due.map(([key, entry]) => [key, entry, entry.pending] as const);
    const pipeline = this.redis.pipeline();
    for (const [key, , count] of sent) {
      const redisKey = `window:${this.name}:${window}:${key}`;
      pipeline.incrby(redisKey, count).pexpire(redisKey, this.windowMs * 2);
    }
    this.flushing = pipeline
      .exec()
      .then((results) => {
        let failed: Error | null = null;
        sent.forEach(([, entry, count], index) => {
          const [error, total] = results?.[index * 2] ?? [new Error('no reply from Redis'), null];
          if (error) {
            failed ??= error;
            return;
          }
          // Hits counted while the pipeline ran stay pending; the total includes this flush.
          entry.pending -= count;
          if (this.window === window) entry.shared = Number(total);
        });
        if (failed) this.onFlushError(failed);
      })
      .catch((error: Error) => this.onFlushError(error))
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
  }

  /** Stops the background flush (the caller flushes once more if it wants the last counts kept). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private scheduleFlush(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  private forgetFlushed(): void {
    for (const [key, entry] of this.entries) if (entry.pending === 0) this.entries.delete(key);
  }
}
