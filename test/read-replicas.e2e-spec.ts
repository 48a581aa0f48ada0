import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import request from 'supertest';
import { READ_APPLICATION_NAME } from '../src/core/database/data-source-options';
import { Metrics } from '../src/core/metrics/metrics';
import { WorkerModule } from '../src/worker.module';
import { createRegistrant } from './support/auth';
import { jobFinished, waitForJob } from './support/jobs';
import {
  onStandby,
  pauseReplay,
  resumeReplay,
  standbyDatabaseUrl,
  startStandby,
  stopStandby,
  waitForStandbyCaughtUp,
} from './support/standby';
import { createTestApp } from './support/test-app';
import { testConfig, testKeyPrefix } from './support/test-environment';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type SampleJson = { igsn: string; name: string };

const STANDBY = new URL(standbyDatabaseUrl()).host;
const STANDBY_CHECK = `standby ${STANDBY}`;

/**
 * Reads on the real streaming standby scripts/ensure-standby.sh keeps on 127.0.0.1:5433: what is
 * served there, read-your-writes while replay is paused, lag and a stopped standby falling back.
 * Queues of its own, so the worker it starts takes only this suite's jobs.
 */
describe('reads on a streaming standby', () => {
  const prefix = `${testKeyPrefix()}-replicas`;
  /** The standby stays in use however far behind it falls (replay is paused for whole tests). */
  const patient = (extra: Record<string, string> = {}) =>
    testConfig({
      REDIS_KEY_PREFIX: prefix,
      DATABASE_READ_URLS: standbyDatabaseUrl(),
      READ_REPLICA_MAX_LAG_SECONDS: '3600',
      ...extra,
    });
  let app: INestApplication;
  let worker: INestApplicationContext;
  let owner: Registrant;
  let stranger: Registrant;
  /** Staff see each standby by host:port and why it takes no reads; anyone else a number and `no reads`. */
  let staff: Registrant;
  const tag = `rr${randomUUID().slice(0, 8)}`;
  const http = () => request(app.getHttpServer());
  const suffix = (sample: SampleJson) => sample.igsn.split('/').pop() as string;

  const register = async (name: string): Promise<SampleJson> =>
    (
      await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({ registry_code: owner.code, object_type: 'Core', name, latitude: 53.3, longitude: -6.2 })
        .expect(201)
    ).body.data as SampleJson;

  /** Reads counted by a process's ReadRouting, on the standby or (reason given) on the primary. */
  async function reads(context: INestApplicationContext, target: 'standby' | 'primary', reason?: string) {
    const metric = context.get(Metrics).registry.getSingleMetric('db_reads_total') as Counter;
    const { values } = await metric.get();
    return values
      .filter((value) => (target === 'primary' ? value.labels.target === 'primary' : value.labels.target === STANDBY))
      .filter((value) => reason === undefined || value.labels.reason === reason)
      .reduce((sum, value) => sum + value.value, 0);
  }

  /** The last statement of each of this process's read connections on the standby. */
  async function standbyStatements(): Promise<string[]> {
    const rows = await onStandby<{ query: string }>(
      `SELECT query FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [`${READ_APPLICATION_NAME}-${process.pid}`],
    );
    return rows.map((row) => row.query);
  }

  /**
   * A statement reading samples: it names the table, or (pg_stat_activity keeps only the first
   * track_activity_query_size bytes, 1 kB by default, and the detail statement's column list is
   * longer) starts with the sample detail's columns.
   */
  const readsSamples = (sql: string): boolean => /\bsample\b|^\s*SELECT s\.id, s\.igsn\b/.test(sql);

  /** Index and table scans of `sample` run on the standby itself (its own statistics, not the primary's). */
  async function sampleScansOnStandby(): Promise<number> {
    const [row] = await onStandby<{ scans: string }>(
      `SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans FROM pg_stat_user_tables WHERE relname = 'sample'`,
    );
    return Number(row.scans);
  }

  /** What readiness says about the standby, to staff (it answers 200 whatever the standby's state). */
  async function readiness(target = app): Promise<string> {
    const res = await request(target.getHttpServer()).get('/api/health/ready').set(staff.auth).expect(200);
    return (res.body as { data: { checks: Record<string, string> } }).data.checks[STANDBY_CHECK];
  }

  /** Polls `check` until it holds (state, not time: each poll is a fresh look). */
  async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    await startStandby(); // idempotent: as ensure-services left it, or started again
    await resumeReplay();
    app = await createTestApp({ config: patient() });
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule.forRoot(patient())] }).compile();
    worker = await moduleRef.init();
    [owner, stranger, staff] = await Promise.all([
      createRegistrant(app),
      createRegistrant(app),
      createRegistrant(app, { isStaff: true }),
    ]);
    await until(async () => (await readiness()) === 'up', 'the standby to be up');
  }, 180_000);

  afterAll(async () => {
    // Whatever a failed test left: replay running, the standby up, for the next run.
    await startStandby().catch(() => undefined);
    await resumeReplay().catch(() => undefined);
    await worker?.close();
    await app?.close();
  }, 120_000);

  it('serves anonymous fetch, search and list from the standby', async () => {
    const sample = await register(`${tag} granite`);
    await waitForStandbyCaughtUp();
    const before = await reads(app, 'standby');
    const scansBefore = await sampleScansOnStandby();

    const fetched = await http()
      .get(`/api/samples/${suffix(sample)}/`)
      .expect(200);
    expect(fetched.body.data).toMatchObject({ igsn: sample.igsn, name: `${tag} granite` });
    // The standby itself shows this process's read connection, last used on the sample table, and
    // counts the scans of `sample` it ran (its statistics reach the view within seconds).
    expect((await standbyStatements()).some(readsSamples)).toBe(true);
    await until(async () => (await sampleScansOnStandby()) > scansBefore, 'the scans to show on the standby');

    const found = await http().get(`/api/samples/?q=${tag}`).expect(200);
    expect(found.body.data.map((row: SampleJson) => row.igsn)).toContain(sample.igsn);
    await http().get('/api/samples/?page_size=5').expect(200);
    expect((await standbyStatements()).some(readsSamples)).toBe(true);

    expect(await reads(app, 'standby')).toBeGreaterThanOrEqual(before + 3);
    expect(await readiness()).toBe('up');
  }, 120_000);

  it('with replay paused, the writer reads their own writes at once while others see the standby; after resuming both agree', async () => {
    const existing = await register(`${tag} before pause`);
    await waitForStandbyCaughtUp();
    await pauseReplay();
    let created = {} as SampleJson;
    try {
      created = await register(`${tag} during pause`);
      await http()
        .patch(`/api/samples/${suffix(existing)}/`)
        .set(owner.auth)
        .send({ name: `${tag} renamed` })
        .expect(200);

      // The writer: their last commit is not replayed on the standby, so the primary answers.
      const rywBefore = await reads(app, 'primary', 'read-your-writes');
      await http()
        .get(`/api/samples/${suffix(created)}/`)
        .set(owner.auth)
        .expect(200);
      const own = await http()
        .get(`/api/samples/${suffix(existing)}/`)
        .set(owner.auth)
        .expect(200);
      expect(own.body.data.name).toBe(`${tag} renamed`);
      const mine = await http().get(`/api/samples/?q=${tag}&scope=personal`).set(owner.auth).expect(200);
      expect(mine.body.data.map((row: SampleJson) => row.igsn)).toContain(created.igsn);
      expect(await reads(app, 'primary', 'read-your-writes')).toBeGreaterThan(rywBefore);

      // Everyone else reads the standby as it was when replay stopped.
      await http()
        .get(`/api/samples/${suffix(created)}/`)
        .expect(404);
      const anonymous = await http()
        .get(`/api/samples/${suffix(existing)}/`)
        .expect(200);
      expect(anonymous.body.data.name).toBe(`${tag} before pause`);
      const other = await http()
        .get(`/api/samples/${suffix(existing)}/`)
        .set(stranger.auth)
        .expect(200);
      expect(other.body.data.name).toBe(`${tag} before pause`);
      const search = await http().get(`/api/samples/?q=${tag}`).expect(200);
      expect(search.body.data.map((row: SampleJson) => row.igsn)).not.toContain(created.igsn);
      const page = await http()
        .get(`/samples/${suffix(existing)}`)
        .expect(200);
      expect(page.text).toContain(`${tag} before pause`);
      expect(page.text).not.toContain(`${tag} renamed`);
    } finally {
      await resumeReplay();
    }

    await waitForStandbyCaughtUp();
    for (const who of [{}, owner.auth, stranger.auth]) {
      const res = await http()
        .get(`/api/samples/${suffix(existing)}/`)
        .set(who)
        .expect(200);
      expect(res.body.data.name).toBe(`${tag} renamed`);
      await http()
        .get(`/api/samples/${suffix(created)}/`)
        .set(who)
        .expect(200);
    }
    const page = await http()
      .get(`/samples/${suffix(existing)}`)
      .expect(200);
    expect(page.text).toContain(`${tag} renamed`);
  });

  it('gives a standby lagging more than READ_REPLICA_MAX_LAG_SECONDS no reads until it catches up', async () => {
    const strict = await createTestApp({ config: patient({ READ_REPLICA_MAX_LAG_SECONDS: '1' }) });
    try {
      await until(async () => (await readiness(strict)) === 'up', 'the standby to be up');
      await pauseReplay();
      let created = {} as SampleJson;
      try {
        created = await register(`${tag} lagging`);
        await until(async () => (await readiness(strict)).startsWith('no reads: lagging'), 'the lag to be seen');
        // Anonymous, yet answered by the primary: the standby does not have it.
        const fallbacksBefore = await reads(strict, 'primary', 'standby-unavailable');
        await request(strict.getHttpServer())
          .get(`/api/samples/${suffix(created)}/`)
          .expect(200);
        expect(await reads(strict, 'primary', 'standby-unavailable')).toBeGreaterThan(fallbacksBefore);
      } finally {
        await resumeReplay();
      }
      await until(async () => (await readiness(strict)) === 'up', 'the standby to catch up');
      const before = await reads(strict, 'standby');
      await request(strict.getHttpServer())
        .get(`/api/samples/${suffix(created)}/`)
        .expect(200);
      expect(await reads(strict, 'standby')).toBeGreaterThan(before);
    } finally {
      await strict.close();
    }
  }, 180_000);

  it('exports read the standby for their owner, and keep working with landing pages while the standby is stopped mid-load', async () => {
    const samples = [await register(`${tag} load 1`), await register(`${tag} load 2`)];
    await waitForStandbyCaughtUp();

    // An export with the standby up: the worker reads its samples there.
    const workerReadsBefore = await reads(worker, 'standby');
    const exportCsv = async () => {
      const queued = await http().post('/api/samples/export/').set(owner.auth).send({ q: tag, format: 'csv' });
      expect(queued.status).toBe(202);
      const job = await waitForJob<{ status: string; result: { sample_count: number } }>(
        app,
        owner,
        queued.body.data.job_id as string,
        { until: jobFinished },
      );
      expect(job.status).toBe('completed');
      return job.result.sample_count;
    };
    const countUp = await exportCsv();
    expect(countUp).toBeGreaterThanOrEqual(samples.length);
    expect(await reads(worker, 'standby')).toBeGreaterThan(workerReadsBefore);

    // Anonymous load: fetch, search, landing page, sitemap, vocabularies — every answer must be a 200.
    const failures: string[] = [];
    let answered = 0;
    let stop = false;
    const paths = [
      `/api/samples/${suffix(samples[0])}/`,
      `/api/samples/?q=${tag}`,
      `/samples/${suffix(samples[1])}`,
      '/sitemap.xml',
      '/api/material-types/',
    ];
    const load = async (offset: number) => {
      for (let i = offset; !stop; i++) {
        const path = paths[i % paths.length];
        const res = await http().get(path);
        if (res.status !== 200) failures.push(`${path}: ${res.status} ${res.text.slice(0, 200)}`);
        answered++;
      }
    };
    const loaders = [0, 1, 2].map((offset) => load(offset));
    try {
      await until(async () => answered >= 15, 'the load to run');
      const standbyBefore = await reads(app, 'standby');
      expect(standbyBefore).toBeGreaterThan(0);

      await stopStandby();
      await until(async () => (await readiness()) !== 'up', 'the standby to be seen down');
      const afterDown = answered;
      await until(async () => answered >= afterDown + 30, 'load with the standby down');
      // The owner's export and the landing pages work throughout.
      expect(await exportCsv()).toBe(countUp);
      expect(await readiness()).toMatch(/^no reads: /);
      // Anyone else learns that a standby takes no reads, not where it is or why.
      const anonymous = await http().get('/api/health/ready').expect(200);
      expect(anonymous.body.data.checks).toMatchObject({ database: 'up', redis: 'up', 'standby 1': 'no reads' });
      expect(JSON.stringify(anonymous.body)).not.toContain(STANDBY);
    } finally {
      stop = true;
      await Promise.all(loaders);
      await startStandby();
    }
    expect(failures).toEqual([]);

    await until(async () => (await readiness()) === 'up', 'the standby to be back');
    const before = await reads(app, 'standby');
    await http()
      .get(`/api/samples/${suffix(samples[0])}/`)
      .expect(200);
    expect(await reads(app, 'standby')).toBeGreaterThan(before);
  }, 300_000);
});
