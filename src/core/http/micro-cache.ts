/** How a MicroCache lookup was answered: from a stored entry, by joining a load in flight, or by loading. */
export type MicroCacheResult = 'hit' | 'joined' | 'miss';

export interface MicroCacheOptions<V> {
  /** How long an entry is served, counted from when its load started; 0 turns the cache off. */
  ttlMs: number;
  /** Most entries kept at once; the oldest goes first. */
  maxEntries: number;
  /** Most total weight kept at once (e.g. characters of serialised bodies); the oldest goes first. */
  maxTotalWeight: number;
  /** An entry heavier than this is served to its own caller (and those who joined it) but not kept. */
  maxEntryWeight: number;
  weigh: (value: V) => number;
  /** Milliseconds since any fixed origin (the app's Clock, so tests move time instead of sleeping). */
  now: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
  weight: number;
}

/**
 * A very short-lived, bounded in-process cache ("microcaching"): identical reads within `ttlMs`
 * share one answer, and concurrent misses of a key share one load (single-flight). Failed loads
 * are never kept: the next caller loads again.
 *
 * Entries leave in insertion order (drop-oldest, not LRU): every entry lives the same `ttlMs`, so
 * insertion order is (all but) expiry order and expired entries are swept from the front without a
 * scan; at a life of seconds, keeping the recently read ones longer would gain nothing.
 */
export class MicroCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();
  private totalWeight = 0;

  constructor(private readonly options: MicroCacheOptions<V>) {}

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  /** Entries kept now (expired ones included until swept), and their total weight. */
  get size(): { entries: number; weight: number } {
    return { entries: this.entries.size, weight: this.totalWeight };
  }

  /**
   * The value for `key`: a stored one still within its life, else the load in flight for it, else
   * a new `load()` (kept when it succeeds and is light enough). Disabled, always `load()`.
   */
  async get(key: string, load: () => Promise<V>): Promise<{ value: V; result: MicroCacheResult }> {
    if (!this.enabled) return { value: await load(), result: 'miss' };
    const now = this.options.now();
    const entry = this.entries.get(key);
    if (entry) {
      if (entry.expiresAt > now) return { value: entry.value, result: 'hit' };
      this.remove(key, entry);
    }
    const inFlight = this.loading.get(key);
    if (inFlight) return { value: await inFlight, result: 'joined' };
    const loaded = this.load(key, load, now);
    this.loading.set(key, loaded);
    return { value: await loaded, result: 'miss' };
  }

  private async load(key: string, load: () => Promise<V>, startedAt: number): Promise<V> {
    try {
      const value = await load();
      // Aged from the start of the load: what it read may be that old already.
      this.store(key, value, startedAt + this.options.ttlMs);
      return value;
    } finally {
      this.loading.delete(key);
    }
  }

  private store(key: string, value: V, expiresAt: number): void {
    const now = this.options.now();
    this.sweep(now);
    const weight = this.options.weigh(value);
    if (expiresAt <= now || weight > this.options.maxEntryWeight) return;
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    this.entries.set(key, { value, expiresAt, weight });
    this.totalWeight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && this.totalWeight <= this.options.maxTotalWeight) break;
      this.remove(oldest, entry);
    }
  }

  /** Drops expired entries from the front (the oldest); stops at the first one still alive. */
  private sweep(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.remove(key, entry);
    }
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }
}
