import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Clock } from '../../src/core/clock';
import { SampleAccessPolicy } from '../../src/modules/samples/sample-access.policy';
import { SampleSearchRepository } from '../../src/modules/samples/sample-search.repository';
import { EXACT_COUNT_LIMIT } from '../../src/modules/samples/sample-counts';
import { SampleWriteRepository } from '../../src/modules/samples/sample-write.repository';
import { SampleSearchQuery } from '../../src/modules/samples/sample-search';
import { SampleSearchService } from '../../src/modules/samples/sample-search.service';
import { TestUser, createRegistrant, createUserWithToken } from '../support/auth';
import { createTestApp } from '../support/test-app';
import { IsolatedDatabase, createIsolatedDatabase } from '../support/isolated-database';
import { testConfig, testKeyPrefix } from '../support/test-environment';
import { WorkerProcess, startWorkerProcess } from '../support/worker-process';
import { buildWorkbook } from '../support/workbooks';
import { waitForJob } from '../support/jobs';

const ROWS = 1500;

/**
 * Query plans that do not depend on luck (issue: the public list once joined the parent sample by
 * scanning the whole primary key once per result row, because the planner had never been told how
 * big `sample` had grown). Rows arrive through the real batch path — upload, worker, curation
 * accept — with no ANALYZE by the test; then the plans of the public list are checked, and checked
 * again with the table's statistics removed altogether.
 */
describe('sample list plans after a bulk load', () => {
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Awaited<ReturnType<typeof createRegistrant>>;
  let curator: TestUser;
  const http = () => request(app.getHttpServer());

  /**
   * A database and queues of this suite's own: plans are chosen from the table's size, statistics
   * and GIN pending lists, which other suites' concurrent batches on a shared database would change
   * under the test.
   */
  const prefix = `${testKeyPrefix()}-scale`;
  let database: IsolatedDatabase | undefined;

  beforeAll(async () => {
    database = await createIsolatedDatabase('scale');
    app = await createTestApp({ config: testConfig({ DATABASE_URL: database.url, REDIS_KEY_PREFIX: prefix }) });
    owner = await createRegistrant(app);
    curator = await createUserWithToken(app, { isStaff: true });
    worker = await startWorkerProcess({ DATABASE_URL: database.url, REDIS_KEY_PREFIX: prefix });
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await database?.drop();
  });

  async function publicListPlans(): Promise<Record<string, string>> {
    const policy = app.get(SampleAccessPolicy);
    const condition = policy.publicCondition('s', app.get(Clock).now());
    return app.get(SampleSearchRepository).explainSearchPage(condition, { limit: 25, offset: 0 });
  }

  function expectIndexedPlans(plans: Record<string, string>): void {
    // The page of ids: one table, walked on an index or bitmap — never a join.
    expect(plans.ids).not.toMatch(/Join/);
    // Details: the rows by primary key (an index or bitmap index scan), the parent by primary key
    // in a subplan, and no join of sample rows filtered row by row.
    for (const details of [plans.details, plans.genericDetails]) {
      expect(details).toMatch(
        /(?:Index Scan using sample_pkey on sample s |Bitmap Index Scan on sample_pkey)[^\n]*\n\s*Index Cond: \(id = ANY/,
      );
      expect(details).toMatch(
        /SubPlan[\s\S]*Index Scan using sample_pkey on sample ps [^\n]*\n\s*Index Cond: \(id = s\.parent_sample_id\)/,
      );
      expect(details).not.toMatch(/Seq Scan on sample\b/);
      expect(details).not.toMatch(/Join Filter:[^\n]*\b(?:s|ps)\.(?:id|parent_sample_id)\b/);
    }
  }

  it('loads a batch with parents without a manual ANALYZE; the public list plan uses index conditions', async () => {
    const parent = await http()
      .post('/api/samples/')
      .set(owner.auth)
      .send({ name: `parent-${randomUUID()}`, object_type: 'Core', latitude: 1, longitude: 2 })
      .expect(201);
    const parentIgsn = (parent.body as { data: { igsn: string } }).data.igsn;
    const tag = randomUUID().slice(0, 8);
    const file = buildWorkbook({
      metadata: { registry_code: owner.code, object_type: 'Core' },
      headers: ['Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)', 'Parent IGSN'],
      rows: Array.from({ length: ROWS }, (_, i) => [`${tag}-${i}`, 10 + i / 1000, 20, parentIgsn]),
    });
    const queued = await http().post('/api/batches/upload/').set(owner.auth).attach('file', file, 'plans.xlsx');
    expect(queued.status).toBe(202);
    const job = await waitForJob<{ status: string; result: { batch_id: number } | null }>(
      app,
      owner,
      queued.body.data.job_id,
    );
    expect(job).toMatchObject({ status: 'completed' });
    const batchId = (job.result as { batch_id: number }).batch_id;
    // Once the batch committed, the worker refreshes statistics and empties the trigram indexes'
    // pending lists (left alone, 1,500 rows leave dozens of pages there that every text search
    // reads), and logs it: wait for that line. Nothing else writes to this suite's database.
    await worker!.waitForOutput(`GIN pending pages (batch ${batchId})`);
    const [pending] = await app
      .get(DataSource)
      .query<{ pages: string }[]>("SELECT gin_clean_pending_list('idx_sample_name_trgm'::regclass) AS pages");
    expect(Number(pending.pages)).toBeLessThan(5);
    await http().post(`/api/batches/${batchId}/accept/`).set(curator.auth).expect(200);

    // The application refreshed the statistics itself after the batch.
    const [stats] = await app
      .get(DataSource)
      .query<{ analysed: boolean }[]>(
        "SELECT last_analyze IS NOT NULL AS analysed FROM pg_stat_user_tables WHERE relname = 'sample'",
      );
    expect(stats.analysed).toBe(true);

    // The list is narrowed to this code.
    const list = await http().get(`/api/samples/?registry_code=${owner.code}&page_size=25`).expect(200);
    expect(list.body.data).toHaveLength(25);
    expect(list.body.data[0].parent_sample).toBe(parentIgsn);
    expectIndexedPlans(await publicListPlans());
  }, 120_000);

  it('keeps the same plan shape with no statistics at all', async () => {
    const db = app.get(DataSource);
    await db.query("DELETE FROM pg_statistic WHERE starelid = 'sample'::regclass");
    expectIndexedPlans(await publicListPlans());
    const list = await http().get('/api/samples/?page_size=2000').expect(200);
    expect(list.body.data.length).toBeGreaterThanOrEqual(ROWS);
    await db.query('ANALYZE sample');
  });

  it('counts exactly up to the limit, estimates beyond it with count_exact false, and pages correctly', async () => {
    const tag = `cnt${randomUUID().slice(0, 8)}`;
    const total = EXACT_COUNT_LIMIT + 50;
    await app.get(DataSource).query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, latitude, longitude, metadata_store_status,
                           publish_date, user_owner_id)
       SELECT $1 || lpad(n::text, 6, '0') || 'X', $2, $3 || '-' || n,
              (SELECT id FROM object_type WHERE label = 'Core'), 1, 2, 'published', now() - interval '1 day', $4
         FROM generate_series(1, $5) AS n`,
      [owner.code, owner.code, tag, owner.userId, total],
    );
    // What the worker does after a bulk write (a batch): statistics, and GIN pending lists emptied.
    await app.get(SampleWriteRepository).refreshStatistics('the test’s bulk insert');

    const small = await http().get(`/api/samples/?name=${tag}-1000`).expect(200);
    expect(small.body).toMatchObject({ count: 11, count_exact: true, next: null });

    const first = await http().get(`/api/samples/?name=${tag}&page_size=25`).expect(200);
    expect(first.body.count_exact).toBe(false);
    expect(first.body.count).toBeGreaterThan(EXACT_COUNT_LIMIT);
    expect(first.body.next).toContain('page=2');
    expect(first.body.total_pages).toBe(Math.ceil(first.body.count / 25));

    // The last page proves the total: the count becomes exact there, and next is null.
    const lastPage = Math.ceil(total / 25);
    const last = await http().get(`/api/samples/?name=${tag}&page_size=25&page=${lastPage}`).expect(200);
    expect(last.body).toMatchObject({ count: total, count_exact: true, next: null, total_pages: lastPage });
    expect(last.body.data).toHaveLength(total - (lastPage - 1) * 25);
    expect(last.body.previous).toContain(`page=${lastPage - 1}`);
  }, 60_000);

  it('counts a broad filter like a broad text search: an estimate beyond the limit, exact on the last page', async () => {
    const first = await http().get(`/api/samples/?registry_code=${owner.code}&page_size=2000`).expect(200);
    expect(first.body).toMatchObject({ count_exact: false, next: expect.stringContaining('page=2') });
    expect(first.body.count).toBeGreaterThan(EXACT_COUNT_LIMIT);
    const pages = Math.ceil(first.body.count / 2000) + 1;
    let last = first;
    for (let page = 2; page <= pages && last.body.next; page++) {
      last = await http().get(`/api/samples/?registry_code=${owner.code}&page_size=2000&page=${page}`).expect(200);
    }
    expect(last.body).toMatchObject({ count_exact: true, next: null });
    expect(last.body.count).toBeGreaterThan(EXACT_COUNT_LIMIT);
  }, 60_000);

  it.each<[string, (code: string) => SampleSearchQuery, RegExp]>([
    ['registry_code', (code) => ({ registry_code: code }), /idx_sample_registry_code/],
    ['bbox', () => ({ bbox: '-60,-60,-59.5,-59.5' }), /idx_sample_(latitude|longitude)/],
    ['sampling dates', () => ({ sampling_date_from: '1900', sampling_date_to: '1901' }), /idx_sample_sampling_period/],
    ['creation dates', () => ({ created_to: '2001' }), /idx_sample_(public|newest)/],
    ['q (other names too)', () => ({ q: 'zqxj' }), /idx_sample_other_names_trgm/],
  ])('starts a selective %s search from its index, with real statistics', async (_name, query, index) => {
    const { code } = await createRegistrant(app); // a code with no samples
    const { where } = await app.get(SampleSearchService).searchCondition(query(code), undefined);
    const plans = await app.get(SampleSearchRepository).explainSearchPage(where, { limit: 25, offset: 0 });
    // A selective filter's matches are collected (SampleSearchRepository.searchCollected), not paged along
    // the newest-first order: that statement is the one that must start from the filter's index.
    expect(plans.collected).toMatch(index);
    expect(plans.collected).not.toMatch(/Seq Scan on sample\b/);
  });

  it('finds the collectors first: a collector search starts from its index, and no sample is read for a name nobody has', async () => {
    const name = `Collector ${randomUUID()}`;
    await http()
      .post('/api/samples/')
      .set(owner.auth)
      .send({
        name: `collected-${randomUUID()}`,
        object_type: 'Core',
        latitude: 1,
        longitude: 2,
        collectors: [{ individual: { label: name } }],
      })
      .expect(201);
    const idsPlan = async (collector: string) => {
      const { where } = await app.get(SampleSearchService).searchCondition({ collector }, undefined);
      return (await app.get(SampleSearchRepository).explainSearchPage(where, { limit: 25, offset: 0 })).ids;
    };
    const found = await idsPlan(name);
    // From the collector's rows of sample_collector (its index, or the whole table while it is this
    // small), never by walking the samples newest first and probing each one's collectors.
    expect(found).toMatch(/idx_sample_collector_collector|Seq Scan on sample_collector sc/);
    expect(found).not.toMatch(/Seq Scan on sample\b|idx_sample_(public|newest)/);
    expect(await idsPlan('nobody by this name')).toMatch(/One-Time Filter: false/);
  });

  it('answers a statement timeout with 503 and Retry-After, never 500', async () => {
    // A sane timeout and a statement that is slow by construction: a trigger on this suite's own
    // database sleeps far longer than the timeout, so the insert is cancelled on any machine (a
    // 1 ms budget also cancelled the connection's first statements where they take over 1 ms).
    const config = testConfig({ DATABASE_URL: database!.url, REDIS_KEY_PREFIX: prefix });
    const db = app.get(DataSource);
    await db.query(
      `CREATE FUNCTION scale_test_slow_insert() RETURNS trigger LANGUAGE plpgsql AS
       $$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$`,
    );
    await db.query(
      `CREATE TRIGGER scale_test_slow_insert BEFORE INSERT ON sample
       FOR EACH STATEMENT EXECUTE FUNCTION scale_test_slow_insert()`,
    );
    const slow = await createTestApp({
      config: { ...config, database: { ...config.database, statementTimeoutMs: 1000 } },
    });
    try {
      const before = await db.query<{ n: number }[]>('SELECT count(*)::int AS n FROM sample');
      const res = await request(slow.getHttpServer())
        .post('/api/samples/')
        .set(owner.auth)
        .send({ name: `timeout-${randomUUID()}`, object_type: 'Core', latitude: 1, longitude: 2 });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({ message: 'The database is busy; try again shortly.', errors: {} });
      expect(await db.query('SELECT count(*)::int AS n FROM sample')).toEqual(before);
    } finally {
      await slow.close();
      await db.query('DROP TRIGGER scale_test_slow_insert ON sample');
      await db.query('DROP FUNCTION scale_test_slow_insert()');
    }
  });
});
