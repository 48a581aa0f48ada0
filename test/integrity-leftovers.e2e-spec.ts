import { getQueueToken } from '@nestjs/bullmq';
import { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/core/queue/queue-names';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { LEGACY_ENDPOINTS, legacySamplesDocument, postLegacyXml, readLegacyResults } from './support/legacy-xml-client';
import { waitForJob as waitForJobState } from './support/jobs';
import { createTestApp } from './support/test-app';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook } from './support/workbooks';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Auth = { auth: { Authorization: string } };

interface JobBody {
  status: string;
  error_message: string | null;
  processed_count: number;
  result: { errors?: { row: number; message: string }[] } | null;
}

const tag = () => randomUUID().slice(0, 8);
const HEADERS = ['Sample Name', 'Object Type', 'Latitude (WGS84)', 'Longitude (WGS84)'];

/**
 * Integrity gaps closed after issue 13: parent cycles through stored samples, a new registry code
 * inside a used namespace, PATCH of launch platforms, and an uploader deactivated while the worker
 * is processing their batch. Real API, worker, PostgreSQL and Redis.
 */
describe('integrity leftovers', () => {
  let app: INestApplication;
  let db: DataSource;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  let staff: TestUser;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await createRegistrant(app);
    staff = await createUserWithToken(app, { isStaff: true });
  });

  afterAll(async () => {
    await worker?.stop();
    await app.close();
  });

  const register = (body: Record<string, unknown> = {}, who: Registrant = owner) =>
    http()
      .post('/api/samples/')
      .set(who.auth)
      .send({
        registry_code: who.code,
        name: `sample-${tag()}`,
        object_type: 'Individual sample',
        latitude: 41.5,
        longitude: -72.8,
        ...body,
      })
      .expect(201)
      .then((res) => res.body.data as { igsn: string; name: string; parent_sample: string | null });
  const bare = (igsn: string) => igsn.replace(/^10\.5072\//, '');
  const parentOf = async (igsn: string): Promise<string | null> =>
    (
      await db.query<{ parent: string | null }[]>(
        'SELECT p.igsn AS parent FROM sample s LEFT JOIN sample p ON p.id = s.parent_sample_id WHERE s.igsn = $1',
        [bare(igsn)],
      )
    )[0].parent;
  const upload = (who: Auth, file: Buffer) =>
    http().post('/api/batches/upload/').set(who.auth).attach('file', file, 'batch.xlsx');
  const readJob = async (jobId: string): Promise<JobBody> =>
    (await http().get(`/api/jobs/${jobId}/`).set(staff.auth).expect(200)).body.data as JobBody;
  const waitForJob = (jobId: string, timeoutMs = 120_000): Promise<JobBody> =>
    waitForJobState<JobBody>(app, staff, jobId, { timeoutMs });
  const ensureWorker = async () => {
    worker ??= await startWorkerProcess();
  };

  /** A chain A ← B ← C (B's parent is A, C's is B). */
  async function chain(): Promise<[string, string, string]> {
    const a = await register();
    const b = await register({ parent_sample: a.igsn });
    const c = await register({ parent_sample: b.igsn });
    return [a.igsn, b.igsn, c.igsn];
  }

  /** Samples of this suite's code whose ancestry comes back to themselves. */
  const cyclicSamples = async (code: string): Promise<unknown[]> =>
    db.query<unknown[]>(
      `WITH RECURSIVE walk(start_id, current_id, depth) AS (
         SELECT id, parent_sample_id, 1 FROM sample WHERE registry_code = $1 AND parent_sample_id IS NOT NULL
         UNION ALL
         SELECT w.start_id, s.parent_sample_id, w.depth + 1 FROM walk w JOIN sample s ON s.id = w.current_id
          WHERE w.current_id <> w.start_id AND s.parent_sample_id IS NOT NULL AND w.depth < 100)
       SELECT DISTINCT start_id FROM walk WHERE current_id = start_id`,
      [code],
    );

  describe('parents: no cycle through stored samples', () => {
    it('PATCH refuses a parent that descends from the sample, or the sample itself, changing nothing', async () => {
      const [a, b, c] = await chain();
      for (const parent of [c, b, a, bare(c).toLowerCase()]) {
        const res = await http()
          .patch(`/api/samples/${a}/`)
          .set(owner.auth)
          .send({ parent_sample: parent })
          .expect(400);
        expect(Object.keys(res.body.errors)).toEqual(['parent_sample']);
        expect(res.body.errors.parent_sample[0]).toMatch(parent === a ? /itself/ : /cycle/);
        expect(res.body.message).toContain('parent_sample');
      }
      expect([await parentOf(a), await parentOf(b), await parentOf(c)]).toEqual([null, bare(a), bare(b)]);
      // Moving C up under A is no cycle; nor is hanging A under an unrelated sample.
      await http().patch(`/api/samples/${c}/`).set(owner.auth).send({ parent_sample: a }).expect(200);
      const other = await register();
      await http().patch(`/api/samples/${a}/`).set(owner.auth).send({ parent_sample: other.igsn }).expect(200);
      expect(await parentOf(a)).toBe(bare(other.igsn));
      expect(await cyclicSamples(owner.code)).toEqual([]);
    });

    it('legacy XML update refuses the same cycle, per sample, changing nothing', async () => {
      const [a, , c] = await chain();
      const name = `legacy-${tag()}`;
      const xml = legacySamplesDocument(`<igsn>${a}</igsn><name>${name}</name><parent_igsn>${c}</parent_igsn>`);
      const res = await postLegacyXml(app, LEGACY_ENDPOINTS.update, xml, { headers: owner.auth });
      const [result] = (await readLegacyResults(res.text)).samples;
      expect(result.valid).toEqual({ code: 'InvalidSample', value: 'no' });
      expect(result.error).toContain('cycle');
      expect(await parentOf(a)).toBeNull();
      expect((await db.query('SELECT count(*)::int AS n FROM sample WHERE name = $1', [name]))[0].n).toBe(0);
    });

    it('a batch re-upload refuses a cycle through stored samples, also one closed by a new row', async () => {
      await ensureWorker();
      const [a, b, c] = await chain();
      const t = tag();
      const direct = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['IGSN', ...HEADERS, 'Parent IGSN'],
        rows: [[a, `${t}-a`, 'Core', 1, 2, c]],
      });
      const first = await waitForJob((await upload(owner, direct).expect(202)).body.data.job_id);
      expect(first.status).toBe('failed');
      expect(first.result?.errors).toEqual([{ row: 2, message: expect.stringMatching(/^parent_sample: .*cycle/) }]);

      // A under a new row N, N under C (a descendant of A): no cycle inside the file, one through the table.
      const n = `${owner.code}${t.slice(0, 4).toUpperCase()}`;
      const throughNew = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['IGSN', ...HEADERS, 'Parent IGSN'],
        rows: [
          [a, `${t}-a`, 'Core', 1, 2, n],
          [n, `${t}-n`, 'Core', 1, 2, c],
        ],
      });
      const second = await waitForJob((await upload(owner, throughNew).expect(202)).body.data.job_id);
      expect(second.status).toBe('failed');
      expect(second.result?.errors?.find((error) => error.row === 2)?.message).toMatch(/cycle/);
      expect([await parentOf(a), await parentOf(b), await parentOf(c)]).toEqual([null, bare(a), bare(b)]);
      expect(await db.query('SELECT igsn FROM sample WHERE igsn = $1', [n])).toEqual([]);

      // The same re-upload without the cycle goes through.
      const fine = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['IGSN', ...HEADERS, 'Parent IGSN'],
        rows: [[c, `${t}-c`, 'Core', 1, 2, a]],
      });
      const third = await waitForJob((await upload(owner, fine).expect(202)).body.data.job_id);
      expect(third.status).toBe('completed');
      expect(await parentOf(c)).toBe(bare(a));
    });

    it('two concurrent PATCHes (X under Y, Y under X) never both succeed', async () => {
      for (let round = 0; round < 20; round++) {
        const [x, y] = [await register(), await register()];
        const statuses = await Promise.all([
          http().patch(`/api/samples/${x.igsn}/`).set(owner.auth).send({ parent_sample: y.igsn }),
          http().patch(`/api/samples/${y.igsn}/`).set(owner.auth).send({ parent_sample: x.igsn }),
        ]).then((responses) => responses.map((res) => res.status).sort());
        expect({ round, statuses }).toEqual({ round, statuses: [200, 400] });
        const parents = [await parentOf(x.igsn), await parentOf(y.igsn)];
        expect(parents.filter((parent) => parent !== null)).toHaveLength(1);
      }
      expect(await cyclicSamples(owner.code)).toEqual([]);
    });
  });

  describe('PATCH /api/launch-platforms/{id}/', () => {
    it('lets the creator and staff correct a launch platform; nobody else; bad input changes nothing', async () => {
      const creator = await createRegistrant(app);
      const stranger = await createUserWithToken(app);
      const word = tag();
      const sample = await register({ launch_platform: { label: `Jason ${word}`, launch_type: 'ROV' } }, creator);
      const launch = (sample as unknown as { launch_platform: { id: number } }).launch_platform;
      const path = `/api/launch-platforms/${launch.id}/`;
      const read = async (): Promise<unknown> => (await http().get(path).set(creator.auth).expect(200)).body as unknown;
      const before = await read();
      expect(before).toMatchObject({ data: { label: `Jason ${word}`, launch_type: 'ROV', can_edit: true } });

      await http().patch(path).send({ launch_type: 'HOV' }).expect(401);
      const forbidden = await http().patch(path).set(stranger.auth).send({ launch_type: 'HOV' }).expect(403);
      expect(forbidden.body).toEqual({ message: 'You may not edit this launch platform.', errors: {} });
      const badType = await http().patch(path).set(creator.auth).send({ launch_type: 'Rocket' }).expect(400);
      expect(Object.keys(badType.body.errors)).toEqual(['launch_type']);
      expect(badType.body.message).toContain('/api/launch-types/');
      const unknown = await http().patch(path).set(creator.auth).send({ colour: 'red' }).expect(400);
      expect(Object.keys(unknown.body.errors)).toEqual(['colour']);
      await http().patch(path).set(creator.auth).send({ label: '  ' }).expect(400);
      await http().patch(path).set(creator.auth).send({ label: null }).expect(400);
      const other = await register({ launch_platform: { label: `Alvin ${word}`, launch_type: 'HOV' } }, creator);
      const taken = await http()
        .patch(path)
        .set(creator.auth)
        .send({ label: ` alvin ${word} ` })
        .expect(409);
      expect(taken.body.errors).toEqual({ label: ['a launch platform with this label already exists'] });
      expect(taken.body.message).toContain(
        `(id ${(other as unknown as { launch_platform: { id: number } }).launch_platform.id})`,
      );
      expect(await read()).toEqual(before);

      const byCreator = await http().patch(path).set(creator.auth).send({ launch_type: 'hov' }).expect(200);
      expect(byCreator.body.data).toMatchObject({ label: `Jason ${word}`, launch_type: 'HOV', can_edit: true });
      const byStaff = await http()
        .patch(path)
        .set(staff.auth)
        .send({ label: `Jason II ${word}` })
        .expect(200);
      expect(byStaff.body.data).toMatchObject({ label: `Jason II ${word}`, launch_type: 'HOV' });
      expect((await http().get(path).expect(200)).body.data.can_edit).toBe(false);
      const refetched = await http().get(`/api/samples/${sample.igsn}/`).expect(200);
      expect(refetched.body.data.launch_platform).toMatchObject({ label: `Jason II ${word}`, launch_type: 'HOV' });
      // The corrected record is what later writes are held to, and the 409 says where to correct it.
      const stale = await http()
        .post('/api/samples/')
        .set(creator.auth)
        .send({
          registry_code: creator.code,
          name: `stale-${word}`,
          object_type: 'Individual sample',
          latitude: 1,
          longitude: 2,
          launch_platform: { label: `Jason II ${word}`, launch_type: 'ROV' },
        })
        .expect(409);
      expect(stale.body.message).toContain(path);

      await http().patch('/api/launch-platforms/2147483000/').set(staff.auth).send({ label: 'x' }).expect(404);
      await http().patch('/api/launch-platforms/abc/').set(staff.auth).send({ label: 'x' }).expect(404);
    });

    it('is documented', async () => {
      const res = await http().get('/api/schema').expect(200);
      const patch = res.body.paths['/api/launch-platforms/{id}']?.patch;
      expect(patch?.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(patch.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409']);
    });
  });

  describe('an uploader deactivated while the worker processes their batch', () => {
    it('fails the job with the documented message and registers nothing', async () => {
      await ensureWorker();
      const uploader = await createRegistrant(app);
      const t = `late-${tag()}`;
      const rows = Array.from({ length: 2000 }, (_, i) => [`${t}-${i}`, 'Core', 1, 2]);
      const file = buildWorkbook({ metadata: { registry_code: uploader.code }, headers: HEADERS, rows });
      // Paused, no worker takes the job before this test holds the account row. The upload itself
      // locks that row (storage accounting), so it is taken only once the upload is accepted.
      const queue = app.get<Queue>(getQueueToken(QueueName.BatchRegistration));
      await queue.pause();
      let jobId: string;
      try {
        jobId = (await upload(uploader, file).expect(202)).body.data.job_id as string;
      } catch (error) {
        await queue.resume();
        throw error;
      }
      // Holding the account row (FOR NO KEY UPDATE: the samples' foreign-key checks pass) makes the
      // worker's re-check just before commit (a FOR SHARE of that row) wait for this transaction.
      const runner = db.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await runner.query('SELECT 1 FROM registry_user WHERE id = $1 FOR NO KEY UPDATE', [uploader.userId]);
        const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
        await queue.resume();
        const started = Date.now();
        for (;;) {
          const [{ waiting }] = await db.query(
            'SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
            [pid],
          );
          if (waiting > 0) break;
          const job = await readJob(jobId);
          if (job.status === 'completed' || job.status === 'failed' || Date.now() - started > 120_000) {
            throw new Error(`the worker never waited for the account row: ${JSON.stringify(job)}`);
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // Every row was checked and inserted: the worker waits at the final re-check.
        const processing = await readJob(jobId);
        expect(processing.status).toBe('processing');
        expect(processing.processed_count).toBeGreaterThan(0);
        await runner.query('UPDATE registry_user SET is_active = false WHERE id = $1', [uploader.userId]);
        await runner.commitTransaction();
        const job = await waitForJob(jobId);
        expect({ status: job.status, error_message: job.error_message }).toEqual({
          status: 'failed',
          error_message: 'The account that uploaded this batch is no longer active; nothing was registered.',
        });
        expect(await db.query('SELECT count(*)::int AS n FROM sample WHERE name LIKE $1', [`${t}-%`])).toEqual([
          { n: 0 },
        ]);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
        await queue.resume();
      }
    }, 180_000);
  });
});
