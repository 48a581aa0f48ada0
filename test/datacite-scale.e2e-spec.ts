import { INestApplication, INestApplicationContext } from '@nestjs/common';
import { BullRegistrar } from '@nestjs/bullmq';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppConfig } from '../src/core/config/app-config';
import { CoreModule } from '../src/core/core.module';
import { prepareDatabase } from '../src/core/database/prepare-database';
import { processorProvider } from '../src/core/queue/queue-processor';
import { FEATURE_MODULES } from '../src/feature-modules';
import { DoiDeliveryProcessor } from '../src/modules/datacite/doi-delivery.processor';
import { budgetPacing } from '../src/modules/datacite/datacite-budget';
import { roundSize } from '../src/modules/datacite/doi-delivery.service';
import { createRegistrant, createUserWithToken } from './support/auth';
import { FakeDataCite } from './support/fake-datacite';
import { createTestApp } from './support/test-app';
import { serverUrls, testConfig, testDatabaseName, testDatabaseUrl, testKeyPrefix } from './support/test-environment';
import { eventually } from './support/eventually';

const BACKLOG = 20_000;
/** Small budgets, so the test sees many windows of them: 2 requests a second, 1 of them bulk. */
const PER_5_MIN = 600;
const BULK_PER_5_MIN = 300;
const CONCURRENCY = 4;
const WORKER_CONCURRENCY = 2;
/** The windows the budget is checked over (the budget's rate, at a scale the test lasts). */
const CHECK_WINDOW_MS = 30_000;
/** Requests arrive with some jitter after the moment the budget granted them. */
const JITTER = 2;

/**
 * Issue 27: a bulk backlog of 20,000 DOIs, and one sample registered through the JSON API while
 * it waits. The single registration is sent before the backlog drains (it waits for at most the
 * bulk rounds already claimed), and the fake DataCite never sees more than the budget.
 */
describe('DataCite at bulk scale', () => {
  const fake = new FakeDataCite('SCALE.REGISTRY', 'secret-password');
  let config: AppConfig;
  let app: INestApplication;
  let worker: INestApplicationContext | undefined;
  let owner: Awaited<ReturnType<typeof createRegistrant>>;
  let staff: Awaited<ReturnType<typeof createUserWithToken>>;
  const http = () => request(app.getHttpServer());
  const database = `${testDatabaseName()}_doiscale`;

  beforeAll(async () => {
    await fake.start();
    const url = new URL(testDatabaseUrl());
    url.pathname = `/${database}`;
    config = testConfig({
      DATABASE_URL: url.toString(),
      REDIS_KEY_PREFIX: `${testKeyPrefix()}-doiscale`,
      PUBLIC_URL: 'https://registry.example.org',
      DATACITE_API_URL: fake.url,
      DATACITE_REPOSITORY_ID: fake.repositoryId,
      DATACITE_PASSWORD: fake.password,
      DATACITE_CONCURRENCY: String(CONCURRENCY),
      DATACITE_TIMEOUT_MS: '5000',
      DATACITE_REQUESTS_PER_5_MIN: String(PER_5_MIN),
      DATACITE_BULK_REQUESTS_PER_5_MIN: String(BULK_PER_5_MIN),
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      METRICS_TOKEN: 'doi-scale-metrics-token-0123456789',
    });
    await prepareDatabase(config);
    app = await createTestApp({ config });
    owner = await createRegistrant(app);
    staff = await createUserWithToken(app, { isStaff: true });
  }, 180_000);

  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await fake.stop();
    const client = new Client({ connectionString: serverUrls().database });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
  });

  const startWorker = async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [CoreModule.forRoot(config), DiscoveryModule, ...FEATURE_MODULES],
      providers: [processorProvider(DoiDeliveryProcessor, config)],
    }).compile();
    worker = await moduleRef.init();
    worker.get(BullRegistrar).register();
  };

  it('sends one registration before a 20,000-DOI bulk backlog, never above the budget', async () => {
    const dataSource = app.get(DataSource);
    // One statement, as a large batch writes its chunks: the outbox triggers make them bulk work.
    await dataSource.query(
      `INSERT INTO sample (igsn, registry_code, name, object_type_id, metadata_store_status, user_owner_id, latitude, longitude)
       SELECT $1 || 'S' || lpad(n::text, 6, '0'), $1, 'backlog-' || n, ot.id, 'published', $2, 10, 20
         FROM generate_series(1, ${BACKLOG}) n, (SELECT id FROM object_type WHERE label = 'Individual sample' LIMIT 1) ot`,
      [owner.code, owner.userId],
    );
    const before = await http().get('/api/datacite/status/').set(staff.auth).expect(200);
    expect(before.body.data).toMatchObject({ pending_bulk: BACKLOG, pending_interactive: 0 });
    // The arithmetic an institution plans with: N samples at the bulk budget.
    expect(before.body.data.estimated_hours_to_drain).toBeCloseTo((BACKLOG / BULK_PER_5_MIN) * (5 / 60), 1);

    await startWorker();
    // Bulk delivery is under way before the interactive sample arrives.
    await eventually(() => expect(fake.requests.length).toBeGreaterThanOrEqual(3), 30_000);

    const registered = await http()
      .post('/api/samples/')
      .set(owner.auth)
      .send({
        registry_code: owner.code,
        name: 'the-one-that-jumps-the-queue',
        object_type: 'Individual sample',
        latitude: 41.5,
        longitude: -72.8,
      })
      .expect(201);
    const doi = registered.body.data.igsn as string;
    const sentBefore = fake.requests.length;
    await eventually(() => expect(fake.requestsFor(doi)).toHaveLength(1), 60_000);
    const sentMeanwhile = fake.requests.findIndex((r) => r.doi.toUpperCase() === doi.toUpperCase()) - sentBefore;
    // Ahead of it: at most the bulk rounds the drains had claimed when it was registered.
    const bulkRound = roundSize(BULK_PER_5_MIN / 300, CONCURRENCY);
    expect(sentMeanwhile).toBeLessThanOrEqual(WORKER_CONCURRENCY * bulkRound);

    const status = await http().get('/api/datacite/status/').set(staff.auth).expect(200);
    expect(status.body.data.pending_interactive).toBe(0);
    expect(status.body.data.pending_bulk).toBeGreaterThan(BACKLOG - fake.requests.length - 1);
    expect(status.body.data.oldest_pending_age_seconds).toBeGreaterThanOrEqual(0);
    expect(status.body.data.budget).toMatchObject({
      requests_per_5_min: PER_5_MIN,
      bulk_requests_per_5_min: BULK_PER_5_MIN,
      paused_until: null,
    });
    expect(status.body.data.budget.used_last_5_min).toBeGreaterThanOrEqual(fake.requests.length - JITTER);

    const metrics = await http()
      .get('/metrics')
      .set('Authorization', 'Bearer doi-scale-metrics-token-0123456789')
      .expect(200);
    expect(metrics.text).toMatch(/datacite_dois_pending\{priority="bulk"\} \d+/);
    expect(metrics.text).toMatch(/datacite_oldest_pending_seconds\{priority="bulk"\} \d+/);
    expect(metrics.text).toMatch(/datacite_budget_used_requests\{kind="all"\} \d+/);

    // Keep delivering until the fake has seen more than a check window's worth of requests.
    await eventually(
      () => expect(fake.requests.at(-1)!.at - fake.requests[0].at).toBeGreaterThan(CHECK_WINDOW_MS),
      CHECK_WINDOW_MS * 3,
    );
    // What the budget allows in a window: its burst, then one request per interval.
    const windowShare = (per5Min: number) => {
      const { intervalUs, burst } = budgetPacing(per5Min);
      return burst + Math.ceil((CHECK_WINDOW_MS * 1000) / intervalUs);
    };
    const isBulk = (r: { doi: string }) => r.doi.toUpperCase() !== doi.toUpperCase();
    expect(fake.maxInWindow(CHECK_WINDOW_MS)).toBeLessThanOrEqual(windowShare(PER_5_MIN) + JITTER);
    expect(fake.maxInWindow(CHECK_WINDOW_MS, isBulk)).toBeLessThanOrEqual(windowShare(BULK_PER_5_MIN) + JITTER);
    // And so within DataCite's own 5-minute windows.
    expect(fake.maxInWindow(300_000)).toBeLessThanOrEqual(PER_5_MIN);
    // The backlog is far from drained: the one registration did not wait for it.
    expect(fake.requests.length).toBeLessThan(BACKLOG / 10);
  }, 300_000);
});
