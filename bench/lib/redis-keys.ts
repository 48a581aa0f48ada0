import Redis from 'ioredis';

/** Deletes every key under a benchmark's own prefix (rate-limit counters, queues). */
export async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<number> {
  const connection = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await connection.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await connection.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) deleted += await connection.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    connection.disconnect();
  }
  return deleted;
}
