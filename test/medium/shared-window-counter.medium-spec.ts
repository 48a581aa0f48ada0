import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { SharedWindowCounter } from '../../src/core/http/shared-window-counter';
import { serverUrls, testKeyPrefix } from '../support/test-environment';

/** The anonymous-read limit's counts: exact within a process, shared through Redis between processes. */
describe('SharedWindowCounter', () => {
  const MINUTE = 60_000;
  let redis: Redis;
  const errors: Error[] = [];
  const counter = (name: string, client: Redis = redis) =>
    new SharedWindowCounter(client, name, MINUTE, 60_000, (error) => errors.push(error));

  beforeAll(() => {
    redis = new Redis(serverUrls().redis, { keyPrefix: `${testKeyPrefix()}:` });
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('counts its own hits exactly and learns the other processes’ at each flush', async () => {
    const name = randomUUID();
    const [one, two] = [counter(name), counter(name)];
    const now = 10 * MINUTE + 5_000;
    expect([1, 2, 3].map(() => one.hit('198.51.100.7', now).hits)).toEqual([1, 2, 3]);
    expect(two.hit('198.51.100.7', now).hits).toBe(1); // two has not heard of one's hits yet
    await one.flush();
    await two.flush(); // adds its hit and reads the window's total back
    expect(two.hit('198.51.100.7', now).hits).toBe(5);
    expect(one.hit('198.51.100.7', now).hits).toBe(4); // one's view is from its own flush
    await one.flush();
    expect(one.hit('198.51.100.7', now).hits).toBe(6);
    expect(one.hit('203.0.113.1', now).hits).toBe(1); // another address, another count
    one.stop();
    two.stop();
  });

  it('starts every window at zero and says when the window ends', async () => {
    const one = counter(randomUUID());
    const start = 20 * MINUTE;
    one.hit('a', start + 59_000);
    expect(one.hit('a', start + 59_000)).toEqual({ hits: 2, resetInMs: 1_000 });
    expect(one.hit('a', start + MINUTE).hits).toBe(1);
    await one.flush();
    one.stop();
  });

  it('keeps counting on its own when Redis cannot be reached, and keeps the hits to add later', async () => {
    const gone = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const lonely = counter(randomUUID(), gone);
    const now = 30 * MINUTE;
    lonely.hit('a', now);
    await lonely.flush();
    expect(errors.length).toBeGreaterThan(0);
    expect(lonely.hit('a', now).hits).toBe(2);
    lonely.stop();
    gone.disconnect();
  });
});
