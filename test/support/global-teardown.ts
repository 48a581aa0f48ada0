import Redis from 'ioredis';
import { Client } from 'pg';
import { serverUrls, testDatabaseName, testKeyPrefix } from './test-environment';

/** Drops this run's database and deletes every Redis key under its prefix. */
export default async function globalTeardown(): Promise<void> {
  if (process.env.SR_TEST_KEEP_DATABASE) return;
  const { database, redis } = serverUrls();
  const client = new Client({ connectionString: database });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${testDatabaseName()}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
  const connection = new Redis(redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await connection.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await connection.scan(cursor, 'MATCH', `${testKeyPrefix()}*`, 'COUNT', 1000);
      if (keys.length) await connection.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    connection.disconnect();
  }
}
