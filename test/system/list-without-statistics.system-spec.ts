import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Clock } from '../../src/core/clock';
import { SampleAccessPolicy } from '../../src/modules/samples/sample-access.policy';
import { SampleSearchRepository } from '../../src/modules/samples/sample-search.repository';
import { SampleSearchService } from '../../src/modules/samples/sample-search.service';
import { createRegistrant } from '../support/auth';
import { createTestApp } from '../support/test-app';
import { IsolatedDatabase, createIsolatedDatabase } from '../support/isolated-database';
import { testConfig, testKeyPrefix } from '../support/test-environment';

const ROWS = 60_000;

/**
 * The public newest-first list must not depend on planner statistics (issue 23 §7): a bulk load
 * the planner has never seen, its statistics removed as a table never analysed has none, and the
 * list page still walks the newest-first index — no sort of every public sample — and answers.
 */
describe('the public list without planner statistics', () => {
  let app: INestApplication;
  let database: IsolatedDatabase | undefined;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    database = await createIsolatedDatabase('cold-list');
    app = await createTestApp({
      config: testConfig({ DATABASE_URL: database.url, REDIS_KEY_PREFIX: `${testKeyPrefix()}-cold-list` }),
    });
    const owner = await createRegistrant(app);
    const db = app.get(DataSource);
    // One in ten is a draft, so the visibility condition really filters; the newest come first.
    await db.query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, latitude, longitude, metadata_store_status,
                           publish_date, user_owner_id, created_at)
       SELECT $1 || lpad(n::text, 7, '0') || 'C', $1, 'cold-' || n,
              (SELECT id FROM object_type WHERE label = 'Core'), 1, 2,
              CASE WHEN n % 10 = 0 THEN 'draft' ELSE 'published' END, now() - interval '1 day', $2,
              now() - n * interval '1 second'
         FROM generate_series(1, $3) AS n`,
      [owner.code, owner.userId, ROWS],
    );
    // What a table never vacuumed or analysed looks like: no column statistics for it or its
    // (expression) indexes, and no size recorded, so the planner guesses from the file length.
    const relations = `SELECT 'sample'::regclass::oid UNION SELECT indexrelid FROM pg_index WHERE indrelid = 'sample'::regclass`;
    await db.query(`DELETE FROM pg_statistic WHERE starelid IN (${relations})`);
    await db.query(`UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 WHERE oid IN (${relations})`);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  async function expectWalkedNewestFirst(where: Parameters<SampleSearchRepository['explainSearchPage']>[0]) {
    const plans = await app.get(SampleSearchRepository).explainSearchPage(where, { limit: 25, offset: 0 });
    // One descent of the newest-first index per step, the condition tested on the row found.
    expect(plans.walk).toMatch(
      /Index Scan using idx_sample_newest on sample s[^\n]*\n\s*Index Cond: \(ROW\(created_at, id\) < ROW\(walk(?:_\d+)?\.created_at, walk(?:_\d+)?\.id\)\)/,
    );
    expect(plans.walk).not.toMatch(/\bSort\b|Seq Scan on sample\b|Bitmap Heap Scan on sample\b/);
    // The page's rows, and each one's parent, are read by primary key, not along another index
    // filtered by id: the planner sizes the never-analysed table from its pages.
    for (const details of [plans.details, plans.genericDetails]) {
      expect(details).toMatch(
        /(?:Index Scan using sample_pkey on sample s|Bitmap Index Scan on sample_pkey)\b[^\n]*\n\s*Index Cond: \(id = ANY/,
      );
      expect(details).not.toMatch(/Filter: \(id = ANY/);
      expect(details).toMatch(
        /Index Scan using sample_pkey on sample ps\b[^\n]*\n\s*Index Cond: \(id = s\.parent_sample_id\)/,
      );
    }
  }

  it('walks the newest-first index for the public list and a common filter', async () => {
    const [statistics] = await app
      .get(DataSource)
      .query<{ n: number }[]>("SELECT count(*)::int AS n FROM pg_statistic WHERE starelid = 'sample'::regclass");
    expect(statistics.n).toBe(0);
    const policy = app.get(SampleAccessPolicy);
    await expectWalkedNewestFirst(policy.publicCondition('s', app.get(Clock).now()));
    const { where } = await app.get(SampleSearchService).searchCondition({ object_type: 'Core' }, undefined);
    await expectWalkedNewestFirst(where);
  });

  it('answers the list pages newest first, as the database orders them', async () => {
    const db = app.get(DataSource);
    for (const [page, size] of [
      [1, 25],
      [3, 25],
      [1, 2000],
    ]) {
      const expected = await db.query<{ igsn: string }[]>(
        `SELECT igsn FROM sample WHERE metadata_store_status = 'published' AND NOT is_deactivated
          ORDER BY created_at DESC, id DESC LIMIT $1 OFFSET $2`,
        [size, (page - 1) * size],
      );
      const list = await http().get(`/api/samples/?page_size=${size}&page=${page}`).expect(200);
      const body = list.body as { data: { igsn: string }[]; next: string | null };
      expect(body.data.map((sample) => sample.igsn.split('/').pop())).toEqual(expected.map((row) => row.igsn));
      expect(body.next).toContain(`page=${page + 1}`);
    }
    // The count: no statistics, so no bounded count of 10,001 rows per request either; the
    // estimate, flagged, corrected to what the page proves.
    const [size] = await db.query<{ bytes: string }[]>("SELECT pg_relation_size('sample') AS bytes");
    expect(Number(size.bytes)).toBeGreaterThan(8 * 1024 * 1024);
    const first = await http().get('/api/samples/?page_size=25').expect(200);
    expect(first.body).toMatchObject({ count_exact: false });
    expect((first.body as { count: number }).count).toBeGreaterThanOrEqual(26);
    // A filter: the same walk, the same answer as the planned statement.
    const cores = await http().get('/api/samples/?object_type=Core&page_size=25').expect(200);
    expect((cores.body as { data: unknown[] }).data).toHaveLength(25);
  }, 60_000);
});
