import { getQueueToken } from '@nestjs/bullmq';
import { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource, QueryRunner } from 'typeorm';
import { QueueName } from '../src/core/queue/queue-names';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { JOB_MESSAGE_MAX_CHARS } from '../src/modules/background-jobs/job-message';
import { counterOfSuffix, formatMintedSuffix } from '../src/modules/samples/igsn.service';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { waitForJob as waitForJobState } from './support/jobs';
import { createTestApp } from './support/test-app';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook, readSamplesSheet } from './support/workbooks';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Auth = { auth: { Authorization: string } };

interface JobBody {
  status: string;
  error_message: string | null;
  payload: { batch_id: number; filename: string };
  result: { sample_count: number; first_igsn: string; errors: { row: number; message: string }[] } | null;
}

const HEADERS = ['Sample Name', 'Object Type', 'Latitude (WGS84)', 'Longitude (WGS84)'];
const UTF8_NAME = 'Proben-Übersicht_東京.xlsx';

/**
 * Hostile and odd input around batches and IGSNs (issue 13, section 5): each case answers clearly
 * and stores nothing it should not, against the real API, worker, PostgreSQL and Redis.
 */
describe('hostile batches and IGSNs', () => {
  let app: INestApplication;
  let db: DataSource;
  let worker: WorkerProcess | undefined;
  let staff: TestUser;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    staff = await createUserWithToken(app, { isStaff: true });
  });

  afterAll(async () => {
    await worker?.stop();
    await app.close();
  });

  const upload = (who: Auth, file: Buffer, filename = 'batch.xlsx', fields: Record<string, string> = {}) => {
    const req = http().post('/api/batches/upload/').set(who.auth).attach('file', file, filename);
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return req;
  };

  const readJob = async (jobId: string): Promise<JobBody> =>
    (await http().get(`/api/jobs/${jobId}/`).set(staff.auth).expect(200)).body.data as JobBody;

  const waitForJob = (jobId: string, timeoutMs = 60_000): Promise<JobBody> =>
    waitForJobState<JobBody>(app, staff, jobId, { timeoutMs });

  const binary = (req: request.Test) =>
    req.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });

  const samplesNamed = async (prefix: string): Promise<{ igsn: string; name: string }[]> =>
    db.query('SELECT igsn, name FROM sample WHERE name LIKE $1 ORDER BY name', [`${prefix}%`]);

  /** The file name a Content-Disposition's filename* carries. */
  const dispositionName = (header: string) => decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(header)?.[1] ?? '');

  /** A transaction of its own on another connection, and a wait until someone else queues behind it. */
  async function blockingTransaction(): Promise<{ runner: QueryRunner; waitForBlocked: () => Promise<void> }> {
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[];
    const waitForBlocked = async () => {
      const started = Date.now();
      for (;;) {
        const [{ n }] = await db.query<{ n: number }[]>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [pid],
        );
        if (n > 0) return;
        if (Date.now() - started > 60_000) throw new Error('nothing waited for the blocking transaction');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    return { runner, waitForBlocked };
  }

  describe('at upload', () => {
    it('answers a template the uploader cannot see exactly as one that does not exist', async () => {
      const owner = await createRegistrant(app);
      const stranger = await createRegistrant(app);
      const theirs = (
        await http()
          .post('/api/batch-templates/')
          .set(stranger.auth)
          .send({ label: `private-${randomUUID().slice(0, 8)}` })
          .expect(201)
      ).body.data;
      const file = buildWorkbook({ metadata: { registry_code: owner.code }, headers: HEADERS, rows: [['t', 'Core']] });
      const hidden = await upload(owner, file, 'batch.xlsx', { template_id: String(theirs.id) }).expect(400);
      const missing = await upload(owner, file, 'batch.xlsx', { template_id: '999999999' }).expect(400);
      expect(hidden.body).toEqual({ message: 'Batch template not found.', errors: { template_id: ['not found'] } });
      expect(missing.body).toEqual(hidden.body);
      expect((await http().get('/api/batches/').set(owner.auth).expect(200)).body.count).toBe(0);
      // the template's owner may use it
      await upload(stranger, file, 'batch.xlsx', { template_id: String(theirs.id) }).expect(202);
    });

    it('keeps UTF-8 file names as sent, in the answer, the batch history and the download', async () => {
      const owner = await createRegistrant(app);
      const names = [UTF8_NAME, "Ada's (copy) * 100%.xlsx"];
      for (const name of names) {
        // A workbook of its own for each name: the same bytes twice would be refused as a duplicate.
        const file = buildWorkbook({
          metadata: { registry_code: owner.code },
          headers: HEADERS,
          rows: [[name, 'Core']],
        });
        const queued = (await upload(owner, file, name).expect(202)).body.data;
        expect(queued.filename).toBe(name);
        const batchId = (await readJob(queued.job_id)).payload.batch_id;
        expect((await http().get(`/api/batches/${batchId}/`).set(owner.auth).expect(200)).body.data.filename).toBe(
          name,
        );
        const download = await binary(http().get(`/api/batches/${batchId}/spreadsheet/`).set(owner.auth)).expect(200);
        const disposition = download.headers['content-disposition'];
        expect(dispositionName(disposition)).toBe(name);
        expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9%!._~-]+$/);
        expect(Buffer.compare(download.body as Buffer, file)).toBe(0);
      }
      const history = (await http().get('/api/batches/').set(owner.auth).expect(200)).body.data;
      expect(history.map((batch: { filename: string }) => batch.filename).sort()).toEqual([...names].sort());

      // A client that sends the RFC 5987 form (filename*=UTF-8''…) gets the same.
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: HEADERS,
        rows: [['rfc', 'Core']],
      });
      const boundary = `----hostile${randomUUID().replace(/-/g, '')}`;
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(UTF8_NAME)}\r\n` +
            'Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n',
        ),
        file,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const raw = await http()
        .post('/api/batches/upload/')
        .set(owner.auth)
        .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
        .send(body)
        .expect(202);
      expect(raw.body.data.filename).toBe(UTF8_NAME);
    });
  });

  describe('with a worker', () => {
    beforeAll(async () => {
      worker = await startWorkerProcess();
    }, 90_000);

    it('fails a batch queued by an account since deactivated or stripped of upload permission, registering nothing', async () => {
      // Paused, no worker (this suite's or another's) takes the jobs before the accounts change.
      const queue = app.get<Queue>(getQueueToken(QueueName.BatchRegistration));
      const queued: { jobId: string; tag: string; reason: string }[] = [];
      await queue.pause();
      try {
        for (const [change, reason] of [
          ['is_active = false', 'The account that uploaded this batch is no longer active; nothing was registered.'],
          [
            'upload_permission_status = 0',
            'The account that uploaded this batch no longer has upload permission; nothing was registered.',
          ],
        ]) {
          const uploader = await createRegistrant(app);
          const tag = `gone-${randomUUID().slice(0, 8)}`;
          const file = buildWorkbook({
            metadata: { registry_code: uploader.code },
            headers: HEADERS,
            rows: [
              [`${tag}-row-1`, 'Core', 1, 2],
              [`${tag}-2`, 'Core', 3, 4],
            ],
          });
          const job = (await upload(uploader, file).expect(202)).body.data;
          await db.query(`UPDATE registry_user SET ${change} WHERE id = $1`, [uploader.userId]);
          queued.push({ jobId: job.job_id, tag, reason });
        }
      } finally {
        await queue.resume();
      }
      for (const { jobId, tag, reason } of queued) {
        const job = await waitForJob(jobId);
        expect({ status: job.status, error_message: job.error_message }).toEqual({
          status: 'failed',
          error_message: reason,
        });
        expect(await samplesNamed(tag)).toEqual([]);
      }
    });

    it('never mints an IGSN that another row of the same file supplies', async () => {
      const owner = await createRegistrant(app);
      const tag = `mint-${randomUUID().slice(0, 8)}`;
      const next = formatMintedSuffix(owner.code, 1); // what minting would hand out first
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['IGSN', ...HEADERS],
        rows: [
          [null, `${tag}-a`, 'Core', 1, 2],
          [next, `${tag}-b`, 'Core', 1, 2],
          [null, `${tag}-c`, 'Core', 1, 2],
        ],
      });
      const jobId = (await upload(owner, file).expect(202)).body.data.job_id;
      const job = await waitForJob(jobId);
      expect(job).toMatchObject({ status: 'completed', error_message: null, result: { sample_count: 3 } });
      // at the first attempt: no insert collided and was retried
      expect(await db.query('SELECT attempts FROM background_job WHERE id = $1', [jobId])).toEqual([{ attempts: 1 }]);
      expect(await samplesNamed(tag)).toEqual([
        { name: `${tag}-a`, igsn: formatMintedSuffix(owner.code, 2) },
        { name: `${tag}-b`, igsn: next },
        { name: `${tag}-c`, igsn: formatMintedSuffix(owner.code, 3) },
      ]);
    });

    it('re-mints when a supplied IGSN is committed between minting and inserting (POST and batch), no 409', async () => {
      for (const via of ['post', 'batch'] as const) {
        const owner = await createRegistrant(app);
        const tag = `race-${via}-${randomUUID().slice(0, 8)}`;
        const first = formatMintedSuffix(owner.code, 1);
        await http()
          .post('/api/samples/')
          .set(owner.auth)
          .send({
            registry_code: owner.code,
            igsn: `${owner.code}-HOLDER`,
            name: `${tag}-holder`,
            object_type: 'Core',
            is_draft: true,
          })
          .expect(201);
        // Another registration takes the first minted value, and has not committed yet.
        const { runner, waitForBlocked } = await blockingTransaction();
        try {
          await runner.query('UPDATE sample SET igsn = $1 WHERE igsn = $2', [first, `${owner.code}-HOLDER`]);
          const registered =
            via === 'post'
              ? http()
                  .post('/api/samples/')
                  .set(owner.auth)
                  .send({
                    registry_code: owner.code,
                    name: `${tag}-new`,
                    object_type: 'Core',
                    latitude: 1,
                    longitude: 2,
                  })
                  .then((res) => res)
              : upload(
                  owner,
                  buildWorkbook({
                    metadata: { registry_code: owner.code },
                    headers: HEADERS,
                    rows: [
                      [`${tag}-new`, 'Core', 1, 2],
                      [`${tag}-new2`, 'Core', 1, 2],
                    ],
                  }),
                ).then((res) => res);
          await waitForBlocked(); // the insert of the minted value waits on the uncommitted one
          await runner.commitTransaction();
          const res = await registered;
          if (via === 'post') {
            expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
            expect(res.body.data.igsn).not.toBe(`10.5072/${first}`);
          } else {
            const job = await waitForJob(res.body.data.job_id);
            expect(job).toMatchObject({ status: 'completed', result: { sample_count: 2 } });
          }
        } finally {
          if (runner.isTransactionActive) await runner.rollbackTransaction();
          await runner.release();
        }
        const stored = await samplesNamed(tag);
        expect(stored.find((sample) => sample.name === `${tag}-holder`)?.igsn).toBe(first);
        expect(stored).toHaveLength(via === 'post' ? 2 : 3);
        expect(new Set(stored.map((sample) => sample.igsn)).size).toBe(stored.length);
      }
    }, 120_000);

    it('gives byte-identical row errors for an IGSN that is hidden and one that does not exist', async () => {
      const uploader = await createRegistrant(app);
      const other = await createRegistrant(app);
      const tag = randomUUID().slice(0, 8);
      const register = async (body: Record<string, unknown>) =>
        (
          await http()
            .post('/api/samples/')
            .set(other.auth)
            .send({ registry_code: other.code, object_type: 'Core', latitude: 1, longitude: 2, ...body })
            .expect(201)
        ).body.data as { id: number; igsn: string };
      const draft = await register({ name: `${tag}-draft`, is_draft: true });
      const embargoed = await register({ name: `${tag}-embargoed`, publish_date: '2099-01-01T00:00:00Z' });
      // A sample named in the IGSN column (the batch would update it), and samples named as parents
      // (linked once every row is in; reported only when no other row failed, so in a file of their own).
      const igsnFile = buildWorkbook({
        metadata: { registry_code: uploader.code },
        headers: ['IGSN', ...HEADERS],
        rows: [
          [draft.igsn, `${tag}-row-1`, 'Core', 1, 2],
          [null, `${tag}-row-2`, 'Core', 1, 2],
        ],
      });
      const parentFile = buildWorkbook({
        metadata: { registry_code: uploader.code },
        headers: ['Parent IGSN', ...HEADERS],
        rows: [
          [draft.igsn, `${tag}-row-3`, 'Core', 1, 2],
          [embargoed.igsn.replace('10.5072/', '').toLowerCase(), `${tag}-row-4`, 'Core', 1, 2],
          [null, `${tag}-row-5`, 'Core', 1, 2],
        ],
      });
      const attempt = async (file: Buffer) => {
        const queued = (await upload(uploader, file).expect(202)).body.data;
        const job = await waitForJob(queued.job_id);
        const report = await binary(http().get(`/api/jobs/${queued.job_id}/download/`).set(uploader.auth)).expect(200);
        return { job, sheet: readSamplesSheet(report.body as Buffer) };
      };

      const whileHidden = [await attempt(igsnFile), await attempt(parentFile)];
      expect(whileHidden.map(({ job }) => job.status)).toEqual(['failed', 'failed']);
      expect(whileHidden[0].job.result?.errors).toEqual([
        { row: 2, message: `igsn: must start with the registry code ${uploader.code}` },
      ]);
      expect(whileHidden[1].job.result?.errors.map((error) => error.row)).toEqual([2, 3]);
      expect(whileHidden[1].job.result?.errors[0].message).toBe(
        `parent_sample: no sample with IGSN ${draft.igsn} is visible to you`,
      );

      // The same files once those IGSNs exist nowhere.
      await db.query("UPDATE sample SET igsn = igsn || 'GONE' WHERE id = ANY($1::bigint[])", [
        [draft.id, embargoed.id],
      ]);
      const whileMissing = [await attempt(igsnFile), await attempt(parentFile)];
      whileMissing.forEach((missing, index) => {
        expect(missing.job.error_message).toBe(whileHidden[index].job.error_message);
        expect(missing.job.result).toEqual(whileHidden[index].job.result);
        expect(missing.sheet).toEqual(whileHidden[index].sheet);
      });
      expect(await samplesNamed(`${tag}-row-`)).toEqual([]);
    });

    it('answers a hidden IGSN in the uploader’s own namespace with a row error, not a crash', async () => {
      const uploader = await createRegistrant(app);
      const tag = randomUUID().slice(0, 8);
      const igsn = `${uploader.code}-STAFF-${tag}`.toUpperCase();
      await http()
        .post('/api/samples/')
        .set(staff.auth)
        .send({ registry_code: uploader.code, igsn, name: `${tag}-staff`, object_type: 'Core', is_draft: true })
        .expect(201);
      const file = buildWorkbook({
        metadata: { registry_code: uploader.code },
        headers: ['IGSN', ...HEADERS],
        rows: [[igsn, `${tag}-mine`, 'Core', 1, 2]],
      });
      const job = await waitForJob((await upload(uploader, file).expect(202)).body.data.job_id);
      expect(job.status).toBe('failed');
      expect(job.result?.errors).toEqual([{ row: 2, message: `igsn: 10.5072/${igsn} is already registered` }]);
    });

    describe('a legacy 3-character registry code', () => {
      let legacy: Registrant;
      let longer: string;

      beforeAll(async () => {
        const accounts = app.get(AccountsService);
        const owner = await createUserWithToken(app);
        const neighbour = await createUserWithToken(app);
        // IE + one character: a legacy code whose namespace holds those of IE + 3 characters.
        for (const char of [...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'].sort(() => Math.random() - 0.5)) {
          try {
            await accounts.createRegistryCode(`IE${char}`, { email: owner.email });
            legacy = { ...owner, code: `IE${char}` };
            break;
          } catch (error) {
            if ((error as { getStatus?: () => number }).getStatus?.() !== 409) throw error;
          }
        }
        for (;;) {
          // a letter first: the namespace starts well past counter 0, so minting can be set just before it
          const letter = 'GHJKMNPQRSTUVWXY'[Math.floor(Math.random() * 16)];
          const candidate = `${legacy.code}${letter}${Math.floor(Math.random() * 10)}`;
          try {
            await accounts.createRegistryCode(candidate, { email: neighbour.email });
            longer = candidate;
            break;
          } catch (error) {
            if ((error as { getStatus?: () => number }).getStatus?.() !== 409) throw error;
          }
        }
      });

      it('cannot register an IGSN inside the longer code’s namespace (JSON API and batch)', async () => {
        const tag = randomUUID().slice(0, 8);
        const body = { registry_code: legacy.code, name: `${tag}-a`, object_type: 'Core', latitude: 1, longitude: 2 };
        for (const igsn of [`${longer}0001`, `10.5072/${longer.toLowerCase()}-x.1`]) {
          const res = await http()
            .post('/api/samples/')
            .set(legacy.auth)
            .send({ ...body, igsn })
            .expect(400);
          expect(res.body.errors).toEqual({ igsn: [`lies in the namespace of registry code ${longer}`] });
        }
        const own = await http()
          .post('/api/samples/')
          .set(legacy.auth)
          .send({ ...body, igsn: `${legacy.code}000001X` })
          .expect(201);
        expect(own.body.data.igsn).toBe(`10.5072/${legacy.code}000001X`);

        const file = buildWorkbook({
          metadata: { registry_code: legacy.code },
          headers: ['IGSN', ...HEADERS],
          rows: [[`${longer}0002`, `${tag}-b`, 'Core', 1, 2]],
        });
        const job = await waitForJob((await upload(legacy, file).expect(202)).body.data.job_id);
        expect(job.status).toBe('failed');
        expect(job.result?.errors).toEqual([
          { row: 2, message: `igsn: lies in the namespace of registry code ${longer}` },
        ]);
        expect(await samplesNamed(`${tag}-b`)).toEqual([]);
      });

      it('mints past the longer code’s namespace instead of into it', async () => {
        const start = counterOfSuffix(legacy.code, `${longer}0000`);
        // The sequence hands out start - 1 next: one value before the other code's namespace.
        await db.query('SELECT setval(igsn_sequence_name($1)::regclass, $2)', [legacy.code, start - 2]);
        const tag = `legacy-${randomUUID().slice(0, 8)}`;
        const file = buildWorkbook({
          metadata: { registry_code: legacy.code },
          headers: HEADERS,
          rows: [1, 2, 3].map((i) => [`${tag}-${i}`, 'Core', 1, 2]),
        });
        const job = await waitForJob((await upload(legacy, file).expect(202)).body.data.job_id);
        expect(job).toMatchObject({ status: 'completed', result: { sample_count: 3 } });
        const igsns = (await samplesNamed(tag)).map((sample) => sample.igsn);
        expect(igsns[0]).toBe(formatMintedSuffix(legacy.code, start - 1));
        const fiveCharacterCodes: { code: string }[] = await db.query(
          'SELECT code FROM registry_code WHERE length(code) = 5',
        );
        for (const igsn of igsns) {
          expect(igsn).toMatch(new RegExp(`^${legacy.code}[0-9A-Z]{6}$`));
          expect(fiveCharacterCodes.filter(({ code }) => igsn.startsWith(code))).toEqual([]);
        }
        expect(counterOfSuffix(legacy.code, igsns[1])).toBeGreaterThan(counterOfSuffix(legacy.code, `${longer}ZZZZ`));
      });
    });

    it('bounds a failed job’s error_message, marking the cut', async () => {
      const owner = await createRegistrant(app);
      const unknown = Array.from({ length: 120 }, (_, i) => `Unheard-of column number ${i} ${'x'.repeat(40)}`);
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: [...HEADERS, ...unknown],
        rows: [['bounded', 'Core', 1, 2]],
      });
      const job = await waitForJob((await upload(owner, file, UTF8_NAME).expect(202)).body.data.job_id);
      expect(job.status).toBe('failed');
      const message = job.error_message ?? '';
      expect(message).toMatch(/^Unknown column\(s\) in the Samples sheet: Unheard-of column number 0 x+, /);
      expect(Array.from(message)).toHaveLength(JOB_MESSAGE_MAX_CHARS);
      expect(message).toMatch(/ … \[truncated: \d+ characters in all\]$/);
    });
  });
});
