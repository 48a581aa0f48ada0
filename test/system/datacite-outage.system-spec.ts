import { INestApplication } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createRegistrant, createUserWithToken } from '../support/auth';
import { FakeDataCite } from '../support/fake-datacite';
import { IsolatedDatabase, createIsolatedDatabase } from '../support/isolated-database';
import { createTestApp } from '../support/test-app';
import { testConfig, testKeyPrefix } from '../support/test-environment';
import { WorkerProcess, startWorkerProcess } from '../support/worker-process';
import { eventually } from '../support/eventually';

const BACKLOG = 20_000;
/** The idle window CPU is measured over, and the share of one core the worker may use in it. */
const WINDOW_MS = 30_000;
/**
 * DataCite attempts the worker may make in WINDOW_MS while DataCite is down: it sleeps between them,
 * each pause twice the one before (2 s, 4 s, 8 s … up to a minute), so a 30 s window holds four at
 * most; a worker polling DataCite would try again and again. Counted from its log, not from its CPU
 * (which grows with a slower machine, its timers and periodic work included).
 */
const MOST_ATTEMPTS_IN_WINDOW = 5;
const OUTAGE_LOG = 'DataCite did not answer';
/** USER_HZ: /proc/<pid>/stat counts CPU time in these. */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process, in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Issue 27: while DataCite is unreachable and a backlog waits, the worker sleeps until the next
 * allowed moment instead of polling (at most a few attempts in 30 s; its CPU is logged), and
 * delivery resumes by itself when DataCite is back — the registration made meanwhile first.
 */
describe('DOI delivery while DataCite is down', () => {
  const fake = new FakeDataCite('OUTAGE.REGISTRY', 'secret-password');
  const prefix = `${testKeyPrefix()}-doioutage`;
  let own: IsolatedDatabase;
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  const dataCiteEnv = () => ({
    PUBLIC_URL: 'https://registry.example.org',
    DATACITE_API_URL: fake.url,
    DATACITE_REPOSITORY_ID: fake.repositoryId,
    DATACITE_PASSWORD: fake.password,
    DATACITE_TIMEOUT_MS: '2000',
    DATACITE_REQUESTS_PER_5_MIN: '6000',
    DATACITE_BULK_REQUESTS_PER_5_MIN: '3000',
  });

  beforeAll(async () => {
    await fake.start();
    own = await createIsolatedDatabase('doioutage');
    app = await createTestApp({
      config: testConfig({ DATABASE_URL: own.url, REDIS_KEY_PREFIX: prefix, ...dataCiteEnv() }),
    });
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await fake.stop();
    await own?.drop();
  });

  it('sleeps while DataCite is unreachable, and delivers again when it is back', async () => {
    const owner = await createRegistrant(app);
    const staff = await createUserWithToken(app, { isStaff: true });
    await app.get(DataSource).query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id, latitude, longitude)
       SELECT $1 || 'S' || lpad(n::text, 6, '0'), $1, 'backlog-' || n, ot.id, 'published', $2, 10, 20
         FROM generate_series(1, ${BACKLOG}) n, (SELECT id FROM object_type WHERE label = 'Individual sample' LIMIT 1) ot`,
      [owner.code, owner.userId],
    );
    await fake.stop(); // DataCite down: connections refused
    // Production's lock and stalled-job intervals (the test default checks every 3 s for killed-worker tests).
    worker = await startWorkerProcess({
      DATABASE_URL: own.url,
      REDIS_KEY_PREFIX: prefix,
      WORKER_LOCK_DURATION_MS: '30000',
      WORKER_STALLED_INTERVAL_MS: '30000',
      ...dataCiteEnv(),
    });
    // The worker tried, failed, and paused every worker; a registration meanwhile changes nothing.
    await worker.waitForOutput(OUTAGE_LOG, 1, 60_000);
    const registered = await request(app.getHttpServer())
      .post('/api/samples/')
      .set(owner.auth)
      .send({
        registry_code: owner.code,
        name: 'during-outage',
        object_type: 'Individual sample',
        latitude: 1,
        longitude: 2,
      })
      .expect(201);
    const doi = registered.body.data.igsn as string;

    const pid = worker.child.pid!;
    const attempts = () => worker!.output().split(OUTAGE_LOG).length - 1;
    const attemptsBefore = attempts();
    const before = cpuTicks(pid);
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const seconds = (Date.now() - started) / 1000;
    const share = (cpuTicks(pid) - before) / TICKS_PER_SECOND / seconds;
    const tried = attempts() - attemptsBefore;
    console.log(
      `worker while DataCite is down: ${tried} attempts and ${(share * 100).toFixed(2)} % of a core over ${seconds.toFixed(0)} s`,
    );
    expect(tried).toBeLessThanOrEqual(MOST_ATTEMPTS_IN_WINDOW);

    const status = await request(app.getHttpServer()).get('/api/datacite/status/').set(staff.auth).expect(200);
    expect(status.body.data.pending).toBeGreaterThanOrEqual(BACKLOG);
    expect(status.body.data.pending_interactive).toBe(1);

    await fake.start(); // back, on the same address
    // The longest pause is a minute; then the sweep's probe succeeds and delivery resumes, interactive first.
    await eventually(() => expect(fake.requestsFor(doi)).toHaveLength(1), 120_000);
    await eventually(() => expect(fake.requests.length).toBeGreaterThan(20), 60_000);
    const first = fake.requests.findIndex((r) => r.doi.toUpperCase() === doi.toUpperCase());
    // Before it at most the probe round that found DataCite back.
    expect(first).toBeLessThanOrEqual(8);
  }, 600_000);
});
