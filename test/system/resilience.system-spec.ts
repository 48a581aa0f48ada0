import { INestApplication } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { statSync, existsSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { QueueName } from '../../src/core/queue/queue-names';
import { privateWorkDir } from '../../src/core/files/private-temp-dir';
import { BackgroundJobsService } from '../../src/modules/background-jobs/background-jobs.service';
import { FilesService } from '../../src/modules/files/files.service';
import { TestUser, createRegistrant, createUserWithToken } from '../support/auth';
import {
  LEGACY_ENDPOINTS,
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
  readLegacyResults,
} from '../support/legacy-xml-client';
import { ServiceProcess, freePort, serviceEnv, startServiceProcess } from '../support/service-process';
import { createTestApp } from '../support/test-app';
import { testConfig, testKeyPrefix } from '../support/test-environment';
import { WorkerProcess, startWorkerProcess } from '../support/worker-process';
import { IsolatedDatabase, createIsolatedDatabase } from '../support/isolated-database';
import { buildWorkbook } from '../support/workbooks';
import { zip } from '../support/zip';
import { waitForJob as waitForJobState } from '../support/jobs';

type Registrant = TestUser & { code: string };
const HEADERS = ['Object Type', 'Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)', 'Country', 'Collector'];
const rowsFor = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ['Core', `${prefix}-${i + 1}`, 40, -70, 'United States', 'Marie Tharp']);

/** A valid workbook's parts, so a hostile variant differs from a real upload in one way only. */
function workbookParts(): { name: string; data: Buffer }[] {
  return [
    {
      name: 'xl/workbook.xml',
      data: Buffer.from(
        '<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
          '<sheets><sheet name="Samples" sheetId="1" r:id="rId1"/></sheets></workbook>',
      ),
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: Buffer.from('<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>'),
    },
  ];
}

describe('stays up under hostile or unlucky conditions', () => {
  let app: INestApplication;
  let owner: Registrant;
  let worker: WorkerProcess | undefined;
  /** The app requests go to: the shared one, or one on a queue of its own (see 'with a worker'). */
  let target: INestApplication;
  const http = () => request(target.getHttpServer());
  const upload = (who: { auth: Record<string, string> }, file: Buffer, headers: Record<string, string> = {}) =>
    http().post('/api/batches/upload/').set(who.auth).set(headers).attach('file', file, 'batch.xlsx');

  const waitForJob = (who: TestUser, jobId: string) =>
    waitForJobState<{ status: string; error_message: string | null }>(target, who, jobId);

  /**
   * This suite's own database and queues: its jobs must stay pending while it looks at them, and
   * other suites' workers on the run's shared queues would otherwise take them.
   */
  const ownPrefix = `${testKeyPrefix()}-resilience`;
  let own: IsolatedDatabase;

  /** The test configuration on this suite's database and queues, with `overrides`. */
  const ownConfig = (overrides: Record<string, string> = {}) =>
    testConfig({ DATABASE_URL: own.url, REDIS_KEY_PREFIX: ownPrefix, ...overrides });

  beforeAll(async () => {
    own = await createIsolatedDatabase('resilience');
    app = await createTestApp({ config: ownConfig() });
    target = app;
    owner = await createRegistrant(app);
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await app.close();
    await own.drop();
  });

  describe('Redis unreachable (a second API process pointed at a closed port)', () => {
    let api: ServiceProcess;
    let base: string;

    beforeAll(async () => {
      const port = await freePort();
      const closedRedis = await freePort();
      api = await startServiceProcess(
        'main',
        serviceEnv({
          DATABASE_URL: own.url,
          REDIS_KEY_PREFIX: ownPrefix,
          PORT: String(port),
          HOST: '127.0.0.1',
          REDIS_URL: `redis://127.0.0.1:${closedRedis}/0`,
          SHUTDOWN_DRAIN_SECONDS: '0',
        }),
        'API listening',
      );
      base = `http://127.0.0.1:${port}`;
    }, 90_000);

    afterAll(async () => {
      await api.kill();
    });

    it('answers uploads and exports within 5 s with the job; the same Idempotency-Key returns that job', async () => {
      const file = buildWorkbook({ metadata: { registry_code: owner.code }, headers: HEADERS, rows: rowsFor(2, 'r') });
      const key = randomUUID();
      const timed = async (send: () => request.Test) => {
        const started = Date.now();
        const res = await send();
        return { res, ms: Date.now() - started };
      };
      const post = () =>
        request(base)
          .post('/api/batches/upload/')
          .set(owner.auth)
          .set('Idempotency-Key', key)
          .attach('file', file, 'batch.xlsx');
      const first = await timed(post);
      expect(first.res.status).toBe(202);
      expect(first.ms).toBeLessThan(5000);
      const again = await timed(post);
      expect(again.res.status).toBe(202);
      expect(again.res.body.data).toEqual(first.res.body.data);

      const db = app.get(DataSource);
      const rows: { id: string; status: string }[] = await db.query(
        'SELECT id, status FROM background_job WHERE user_id = $1 AND idempotency_key = $2',
        [owner.userId, key],
      );
      expect(rows).toEqual([{ id: first.res.body.data.job_id, status: 'pending' }]);
      const [{ count }]: { count: number }[] = await db.query(
        'SELECT count(*)::int AS count FROM batch_history WHERE job_id = $1',
        [first.res.body.data.job_id],
      );
      expect(count).toBe(1);

      const exportKey = randomUUID();
      const exportPost = () =>
        request(base).post('/api/samples/export/').set(owner.auth).set('Idempotency-Key', exportKey).send({});
      const exported = await timed(exportPost);
      expect(exported.res.status).toBe(202);
      expect(exported.ms).toBeLessThan(5000);
      expect((await exportPost()).body.data.job_id).toBe(exported.res.body.data.job_id);

      // A key names one request: reused for another kind of request, it is refused.
      const reused = await request(base).post('/api/samples/export/').set(owner.auth).set('Idempotency-Key', key);
      expect(reused.status).toBe(409);
      expect(reused.body.errors).toEqual({ 'Idempotency-Key': ['names a batch_registration job'] });
      const badKey = await request(base)
        .post('/api/samples/export/')
        .set(owner.auth)
        .set('Idempotency-Key', 'x'.repeat(256));
      expect(badKey.status).toBe(400);

      // The recovery sweep (here with Redis reachable) enqueues what the API could not.
      await app.get(BackgroundJobsService).recover(new Date(Date.now() + 1000));
      const queue = app.get<Queue>(getQueueToken(QueueName.BatchRegistration));
      expect(await queue.getJob(first.res.body.data.job_id)).toBeDefined();
      for (const id of [first.res.body.data.job_id, exported.res.body.data.job_id]) {
        await http().post(`/api/jobs/${id}/cancel/`).set(owner.auth).expect(200);
      }
    }, 60_000);
  });

  describe('uploads are inspected by the bytes they really inflate to, off the event loop', () => {
    it('refuses a zip whose parts lie about their sizes, while health keeps answering', async () => {
      // 3 MB of incompressible text declared as 1 kB: the old check trusted the declaration.
      const liar = zip([
        ...workbookParts(),
        {
          name: 'xl/worksheets/sheet1.xml',
          data: Buffer.from(randomBytes(1536 * 1024).toString('hex')),
          declaredSize: 1024,
        },
      ]);
      // 50 MB of zeros declared as 1 kB: a bomb that stops inflating at the ratio limit.
      const bomb = zip([
        ...workbookParts(),
        { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(50 * 1024 * 1024), declaredSize: 1024 },
      ]);
      const latencies: number[] = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const started = Date.now();
          await http().get('/api/health/').expect(200);
          latencies.push(Date.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const lied = await upload(owner, liar).expect(400);
      expect(lied.body).toEqual({
        message: 'The workbook’s parts do not have the sizes they declare (a zip bomb?) and it was refused.',
        errors: { file: ['The workbook’s parts do not have the sizes they declare (a zip bomb?) and it was refused.'] },
      });
      const bombed = await upload(owner, bomb).expect(400);
      expect(bombed.body.message).toBe('The workbook compresses suspiciously well (a zip bomb?) and was refused.');
      polling = false;
      await poller;
      expect(latencies.length).toBeGreaterThan(0);
      expect(Math.max(...latencies)).toBeLessThan(1000);
    }, 60_000);

    it('refuses a workbook that honestly inflates past BATCH_MAX_INFLATED_BYTES', async () => {
      const small = await createTestApp({ config: ownConfig({ BATCH_MAX_INFLATED_BYTES: '1mb' }) });
      try {
        const honest = zip([
          ...workbookParts(),
          { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(randomBytes(600 * 1024).toString('hex')) },
        ]);
        const res = await request(small.getHttpServer())
          .post('/api/batches/upload/')
          .set(owner.auth)
          .attach('file', honest, 'big.xlsx')
          .expect(400);
        expect(res.body.message).toBe('The workbook is too large once uncompressed.');
      } finally {
        await small.close();
      }
    });
  });

  describe('legacy XML: permission before parsing, attribute limits, the whole multipart body bounded', () => {
    const manyAttributes = (elements: number, perElement: number) =>
      legacySamplesDocument(
        minimalLegacySample(
          owner.code,
          `attr-${randomUUID().slice(0, 8)}`,
          Array.from(
            { length: elements },
            () => `<description ${Array.from({ length: perElement }, (_, i) => `a${i}="1"`).join(' ')}>x</description>`,
          ).join(''),
        ),
      );

    it('refuses a user without upload permission before reading the document', async () => {
      const reader = await createUserWithToken(app, { uploadPermission: false });
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.register, manyAttributes(700, 30), {
        headers: reader.auth,
      }).expect(403);
      expect((await readLegacyResults(res.text)).error).toBe(
        'Submitting legacy XML documents requires upload permission.',
      );
    });

    it('refuses documents with too many attributes, on one element or in all', async () => {
      const wide = await postLegacyXml(app, LEGACY_ENDPOINTS.register, manyAttributes(1, 40), {
        headers: owner.auth,
      }).expect(413);
      expect((await readLegacyResults(wide.text)).error).toBe(
        'An element of the XML document has more than 32 attributes.',
      );
      const many = await postLegacyXml(app, LEGACY_ENDPOINTS.register, manyAttributes(700, 30), {
        headers: owner.auth,
      }).expect(413);
      expect((await readLegacyResults(many.text)).error).toBe('The XML document has more than 20000 attributes.');
    });

    it('bounds the whole multipart body by XML_BODY_LIMIT, not each part', async () => {
      const part = 'x'.repeat(3 * 1024 * 1024);
      const res = await request(app.getHttpServer())
        .post(LEGACY_ENDPOINTS.register)
        .set(owner.auth)
        .field('content', legacySamplesDocument(minimalLegacySample(owner.code, 'two-parts')))
        .field('padding', part)
        .field('more', part)
        .expect(413);
      expect((await readLegacyResults(res.text)).error).toMatch(/larger than the limit of 5242880 bytes/);
    });
  });

  describe('exports', () => {
    let exporter: TestUser;

    beforeAll(async () => {
      exporter = await createUserWithToken(app, { uploadPermission: false });
    });

    it('limits a user to EXPORT_MAX_CONCURRENT_PER_USER pending or running exports (429, Retry-After)', async () => {
      const queued: string[] = [];
      for (let i = 0; i < 2; i++) {
        queued.push(
          (await http().post('/api/samples/export/').set(exporter.auth).send({}).expect(202)).body.data.job_id,
        );
      }
      const refused = await http().post('/api/samples/export/').set(exporter.auth).send({}).expect(429);
      expect(refused.headers['retry-after']).toBe('30');
      expect(refused.body).toEqual({
        message: 'You already have 2 export(s) pending or running (at most 2); try again when one has finished.',
        errors: {},
      });
      await http().post(`/api/jobs/${queued[0]}/cancel/`).set(exporter.auth).expect(200);
      const next = (await http().post('/api/samples/export/').set(exporter.auth).send({}).expect(202)).body.data.job_id;
      for (const id of [queued[1], next]) await http().post(`/api/jobs/${id}/cancel/`).set(exporter.auth).expect(200);
    });

    describe('with a worker', () => {
      let isolated: INestApplication;
      let database: IsolatedDatabase | undefined;
      let sharedOwner: Registrant;
      let crashedFile: string;
      let liveFile: string;

      beforeAll(async () => {
        // Work files of a process that died (its pid no longer runs) and of one that runs (this one).
        const dir = await privateWorkDir();
        const dead = spawnSync(process.execPath, ['-e', '']).pid;
        crashedFile = `${dir}/${dead}-export-crashed.csv`;
        liveFile = `${dir}/${process.pid}-export-live.csv`;
        writeFileSync(crashedFile, 'partial export', { mode: 0o600 });
        writeFileSync(liveFile, 'being written', { mode: 0o600 });
        // Its budgets are tiny: it must not take other suites' jobs, so it gets queues and a
        // database of its own (its recovery sweep would re-enqueue the shared database's open jobs).
        const prefix = `${testKeyPrefix()}-budgets`;
        database = await createIsolatedDatabase('budgets');
        isolated = await createTestApp({
          config: { ...database.config, redis: { ...database.config.redis, keyPrefix: prefix } },
        });
        target = isolated;
        // The owner, in that database: the other blocks use the shared one's.
        sharedOwner = owner;
        owner = await createRegistrant(isolated);
        worker = await startWorkerProcess({
          DATABASE_URL: database.url,
          REDIS_KEY_PREFIX: prefix,
          BATCH_MAX_CELLS: '500',
          BATCH_MAX_INFLATED_BYTES: '200kb',
        });
      }, 90_000);

      afterAll(async () => {
        await worker?.stop();
        worker = undefined;
        target = app;
        owner = sharedOwner;
        await isolated.close();
        await database?.drop();
      });

      it('sweeps the work files a crashed process left, in a directory only this user can enter', async () => {
        const dir = await privateWorkDir();
        for (let i = 0; i < 100 && existsSync(crashedFile); i++) await new Promise((r) => setTimeout(r, 100));
        expect(existsSync(crashedFile)).toBe(false);
        expect(existsSync(liveFile)).toBe(true);
        expect(statSync(dir).mode & 0o777).toBe(0o700);
        execFileSync('rm', ['-f', liveFile]);
      });

      it('charges a stored export to storage_used until it expires, and fails one that does not fit', async () => {
        const db = isolated.get(DataSource);
        const used = async () =>
          Number(
            (await db.query('SELECT storage_used FROM registry_user WHERE id = $1', [owner.userId]))[0].storage_used,
          );
        const before = await used();
        const done = (await http().post('/api/samples/export/').set(owner.auth).send({ format: 'csv' }).expect(202))
          .body.data.job_id;
        expect((await waitForJob(owner, done)).status).toBe('completed');
        const [file]: { size_bytes: string; id: string }[] = await db.query(
          'SELECT f.id, f.size_bytes FROM stored_file f JOIN background_job j ON j.result_file_id = f.id WHERE j.id = $1',
          [done],
        );
        expect(await used()).toBe(before + Number(file.size_bytes));
        await db.query("UPDATE stored_file SET expires_at = now() - interval '1 second' WHERE id = $1", [file.id]);
        await isolated.get(FilesService).removeExpired(new Date());
        expect(await used()).toBe(before);

        await db.query('UPDATE registry_user SET storage_limit = storage_used + 10 WHERE id = $1', [owner.userId]);
        try {
          const full = (await http().post('/api/samples/export/').set(owner.auth).send({ format: 'csv' }).expect(202))
            .body.data.job_id;
          const failed = await waitForJob(owner, full);
          expect(failed.status).toBe('failed');
          expect(failed.error_message).toMatch(
            /^The export is \d+ bytes but only 10 bytes of your storage are left; narrow the search, or wait for earlier exports to expire\.$/,
          );
          expect(await used()).toBe(before);
        } finally {
          await db.query('UPDATE registry_user SET storage_limit = 1073741824 WHERE id = $1', [owner.userId]);
        }
      }, 90_000);

      it('fails a batch past the worker’s cell or byte budget with a message saying which', async () => {
        const cells = buildWorkbook({
          metadata: { registry_code: owner.code },
          headers: HEADERS,
          rows: rowsFor(100, 'c'),
        });
        const overCells = await waitForJob(owner, (await upload(owner, cells).expect(202)).body.data.job_id);
        expect(overCells).toMatchObject({
          status: 'failed',
          error_message: 'The Samples sheet has more than 500 filled-in cells; split it into smaller batches.',
        });
        const long = buildWorkbook({
          headers: ['Sample Name'],
          rows: Array.from({ length: 50 }, (_, i) => [`${randomBytes(2500).toString('hex')}-${i}`]),
        });
        const overBytes = await waitForJob(owner, (await upload(owner, long).expect(202)).body.data.job_id);
        expect(overBytes).toMatchObject({
          status: 'failed',
          error_message: 'The workbook inflates to more than 204800 bytes; split it into smaller batches.',
        });
      }, 90_000);
    });
  });

  it('limits anonymous searches per IP when ANONYMOUS_RATE_LIMIT_PER_MINUTE is set; signed-in callers are not counted', async () => {
    const limited = await createTestApp({ config: ownConfig({ ANONYMOUS_RATE_LIMIT_PER_MINUTE: '3' }) });
    try {
      const get = () => request(limited.getHttpServer()).get('/api/samples/?page_size=1');
      for (let i = 0; i < 3; i++) await get().expect(200);
      const refused = await get().expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body.message).toMatch(
        /^Too many requests from your address; try again in \d+ seconds, or sign in\.$/,
      );
      await get().set(owner.auth).expect(200);
    } finally {
      await limited.close();
    }
  });
});
