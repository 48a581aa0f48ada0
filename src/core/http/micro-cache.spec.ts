import { MicroCache, MicroCacheOptions } from './micro-cache';

/** A cache of strings weighed by their length, on a clock the test moves. */
function cacheOf(options: Partial<MicroCacheOptions<string>> = {}) {
  const time = { now: 0 };
  const cache = new MicroCache<string>({
    ttlMs: 1000,
    maxEntries: 100,
    maxTotalWeight: 1000,
    maxEntryWeight: 100,
    weigh: (value) => value.length,
    now: () => time.now,
    ...options,
  });
  let loads = 0;
  const load = (value: string) => async () => {
    loads++;
    return value;
  };
  return { cache, time, load, loads: () => loads };
}

/** A load that finishes when the test says so. */
function pendingLoad<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { load: () => promise, resolve, reject };
}

describe('MicroCache', () => {
  it('answers a repeat within its life from the kept value, and loads again once it has passed', async () => {
    const { cache, time, load, loads } = cacheOf();
    expect(await cache.get('a', load('first'))).toEqual({ value: 'first', result: 'miss' });
    time.now = 999;
    expect(await cache.get('a', load('second'))).toEqual({ value: 'first', result: 'hit' });
    time.now = 1000;
    expect(await cache.get('a', load('third'))).toEqual({ value: 'third', result: 'miss' });
    expect(loads()).toBe(2);
  });

  it('keeps each key apart', async () => {
    const { cache, load } = cacheOf();
    await cache.get('a', load('A'));
    expect(await cache.get('b', load('B'))).toEqual({ value: 'B', result: 'miss' });
    expect(await cache.get('a', load('other'))).toEqual({ value: 'A', result: 'hit' });
  });

  it('ages an entry from the start of its load: what it read is that old already', async () => {
    const { cache, time, load } = cacheOf();
    const slow = pendingLoad<string>();
    const first = cache.get('a', slow.load);
    time.now = 600;
    slow.resolve('read at 0');
    await first;
    time.now = 999;
    expect((await cache.get('a', load('new'))).result).toBe('hit');
    time.now = 1000;
    expect(await cache.get('a', load('new'))).toEqual({ value: 'new', result: 'miss' });
  });

  it('does not keep a load that took longer than the life', async () => {
    const { cache, time, load } = cacheOf();
    const slow = pendingLoad<string>();
    const first = cache.get('a', slow.load);
    time.now = 1500;
    slow.resolve('stale');
    await first;
    expect(cache.size.entries).toBe(0);
    expect((await cache.get('a', load('fresh'))).result).toBe('miss');
  });

  it('lets concurrent misses of one key share a single load', async () => {
    const { cache } = cacheOf();
    const slow = pendingLoad<string>();
    let loads = 0;
    const load = () => {
      loads++;
      return slow.load();
    };
    const answers = Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)]);
    slow.resolve('once');
    expect(await answers).toEqual([
      { value: 'once', result: 'miss' },
      { value: 'once', result: 'joined' },
      { value: 'once', result: 'joined' },
    ]);
    expect(loads).toBe(1);
  });

  it('never keeps a failed load: those waiting share its error, the next caller loads again', async () => {
    const { cache, load } = cacheOf();
    const failing = pendingLoad<string>();
    const first = cache.get('a', failing.load);
    const joined = cache.get('a', load('not called'));
    failing.reject(new Error('bad parameter'));
    await expect(first).rejects.toThrow('bad parameter');
    await expect(joined).rejects.toThrow('bad parameter');
    expect(cache.size.entries).toBe(0);
    expect(await cache.get('a', load('good'))).toEqual({ value: 'good', result: 'miss' });
    expect(await cache.get('a', load('other'))).toEqual({ value: 'good', result: 'hit' });
  });

  it('keeps at most maxEntries, dropping the oldest first', async () => {
    const { cache, load } = cacheOf({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) await cache.get(key, load(key));
    expect(cache.size.entries).toBe(3);
    expect((await cache.get('a', load('a again'))).result).toBe('miss');
    expect((await cache.get('c', load('c again'))).result).toBe('hit');
    expect((await cache.get('d', load('d again'))).result).toBe('hit');
  });

  it('keeps at most maxTotalWeight, dropping the oldest first, and never an entry over maxEntryWeight', async () => {
    const { cache, load } = cacheOf({ maxTotalWeight: 250, maxEntryWeight: 100 });
    const of = (size: number, mark: string) => mark.repeat(size);
    await cache.get('a', load(of(100, 'a')));
    await cache.get('b', load(of(100, 'b')));
    await cache.get('c', load(of(100, 'c')));
    expect(cache.size).toEqual({ entries: 2, weight: 200 });
    expect((await cache.get('a', load('a'))).result).toBe('miss');

    const large = await cache.get('large', load(of(101, 'x')));
    expect(large).toEqual({ value: of(101, 'x'), result: 'miss' });
    expect((await cache.get('large', load(of(101, 'y')))).value).toBe(of(101, 'y'));
  });

  it('sweeps expired entries when it stores, so they hold no memory past their life', async () => {
    const { cache, time, load } = cacheOf();
    await cache.get('a', load('aaaa'));
    await cache.get('b', load('bbbb'));
    time.now = 1000;
    await cache.get('c', load('cc'));
    expect(cache.size).toEqual({ entries: 1, weight: 2 });
  });

  it('with a life of 0 keeps nothing and shares nothing: every call loads', async () => {
    const { cache, load, loads } = cacheOf({ ttlMs: 0 });
    expect(cache.enabled).toBe(false);
    const slow = pendingLoad<string>();
    const first = cache.get('a', slow.load);
    const second = cache.get('a', load('own'));
    slow.resolve('first');
    expect(await first).toEqual({ value: 'first', result: 'miss' });
    expect(await second).toEqual({ value: 'own', result: 'miss' });
    expect(await cache.get('a', load('again'))).toEqual({ value: 'again', result: 'miss' });
    expect(loads()).toBe(2);
    expect(cache.size.entries).toBe(0);
  });
});
