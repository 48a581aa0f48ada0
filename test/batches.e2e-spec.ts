import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { createFreshRegistryCode, createRegistrant, createUserWithToken } from './support/auth';
import { jobFinished, waitForJob as waitForJobState } from './support/jobs';
import { IsolatedDatabase, createIsolatedDatabase } from './support/isolated-database';
import { createTestApp } from './support/test-app';
import { testConfig, testKeyPrefix } from './support/test-environment';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook, readSamplesSheet } from './support/workbooks';
import { zip } from './support/zip';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
const HEADERS = ['Object Type', 'Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)', 'Country', 'Collector'];

describe('batch registration', () => {
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  const http = () => request(app.getHttpServer());

  /**
   * A database and queues of this suite's own: "before a worker runs" means no worker at all, and
   * other suites start workers on the shared queues (and their recovery sweeps take every open job
   * of the shared database), which would take this suite's pending jobs before it cancels them.
   */
  const prefix = `${testKeyPrefix()}-batches`;
  let database: IsolatedDatabase | undefined;

  beforeAll(async () => {
    database = await createIsolatedDatabase('batches');
    app = await createTestApp({ config: testConfig({ DATABASE_URL: database.url, REDIS_KEY_PREFIX: prefix }) });
    owner = await createRegistrant(app);
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await database?.drop();
  });

  // Unique: a name alone matches only an unambiguous individual, and other suites (the OpenAPI fuzz
  // posts the documented examples) may create another "Marie Tharp" in the shared database.
  const collector = `Marie Tharp ${randomUUID().slice(0, 8)}`;
  const rowsFor = (count: number, prefix: string, extra: (i: number) => (string | number | null)[] = () => []) =>
    Array.from({ length: count }, (_, i) => [
      'Core',
      `${prefix}-${i + 1}`,
      40 + i / 10000,
      -70,
      'United States',
      collector,
      ...extra(i),
    ]);

  const upload = (
    who: { auth: { Authorization: string } },
    file: Buffer,
    filename = 'batch.xlsx',
    fields: Record<string, string> = {},
  ) => {
    const req = http().post('/api/batches/upload/').set(who.auth).attach('file', file, filename);
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return req;
  };

  interface JobBody {
    status: string;
    processed_count: number;
    error_message: string | null;
    total_count: number | null;
    result: {
      batch_id: number;
      sample_count: number;
      updated_count: number;
      status: string;
      errors: { row: number; message: string }[];
    };
  }

  const waitForJob = (
    who: { auth: { Authorization: string } },
    jobId: string,
    until: (job: JobBody) => boolean,
    timeoutMs = 60_000,
  ) => waitForJobState<JobBody>(app, who, jobId, { until, timeoutMs });
  const finished = jobFinished;

  describe('before a worker runs', () => {
    it('refuses bad files with a 4xx before anything is queued', async () => {
      const before = (await http().get('/api/batches/').set(owner.auth).expect(200)).body.count;
      const valid = buildWorkbook({ metadata: { registry_code: owner.code }, headers: HEADERS, rows: rowsFor(1, 'x') });
      const cases: [Buffer, string, number, RegExp][] = [
        [Buffer.from('name,latitude\nA,1\n'), 'samples.csv', 415, /Only \.xlsx/],
        [Buffer.from('name,latitude\nA,1\n'), 'renamed.xlsx', 400, /CSV renamed/],
        [Buffer.alloc(0), 'empty.xlsx', 400, /empty/],
        [valid.subarray(0, valid.length - 200), 'truncated.xlsx', 400, /damaged|could not be read/],
        [Buffer.from('d0cf11e0a1b11ae1' + '00'.repeat(504), 'hex'), 'locked.xlsx', 400, /password-protected/],
        [zip([{ name: 'readme.txt', data: Buffer.from('hello') }]), 'plain.xlsx', 400, /not an \.xlsx workbook/],
        [
          zip([
            { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
            { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(30 * 1024 * 1024, 0x20) },
          ]),
          'bomb.xlsx',
          400,
          /zip bomb/,
        ],
      ];
      for (const [file, name, status, message] of cases) {
        const res = await upload(owner, file, name);
        expect({ name, status: res.status }).toEqual({ name, status });
        expect(res.body.message).toMatch(message);
        expect(Object.keys(res.body.errors)).toEqual(['file']);
      }
      await http().post('/api/batches/upload/').set(owner.auth).field('save_as_draft', 'true').expect(400);
      await upload(owner, valid, 'ok.xlsx', { save_as_draft: 'maybe' }).expect(400);
      await upload(owner, valid, 'ok.xlsx', { colour: 'red' }).expect(400);
      const noPermission = await createUserWithToken(app, { uploadPermission: false });
      await upload(noPermission, valid).expect(403);
      expect((await http().get('/api/batches/').set(owner.auth).expect(200)).body.count).toBe(before);
    });

    it('refuses a workbook of more than 100,000 rows', async () => {
      const big = buildWorkbook({
        headers: ['Sample Name'],
        rows: Array.from({ length: 100_001 }, (_, i) => [`s${i}`]),
      });
      const res = await upload(owner, big, 'huge.xlsx').expect(400);
      expect(res.body.message).toBe('The workbook has 100001 rows; a batch holds at most 100000.');
    }, 60_000);

    it('counts uploads against the storage limit (413 saying what is left)', async () => {
      const user = await createRegistrant(app);
      await app.get(DataSource).query('UPDATE registry_user SET storage_limit = 1000 WHERE id = $1', [user.userId]);
      const file = buildWorkbook({ headers: HEADERS, rows: rowsFor(5, 'q') });
      const res = await upload(user, file).expect(413);
      expect(res.body.message).toBe(
        `This upload needs ${file.length} bytes but only 1000 bytes of your storage are left.`,
      );
    });

    it('cancels a pending job and answers 400 to cancelling it again; strangers get 404', async () => {
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: HEADERS,
        rows: rowsFor(2, 'cancel'),
      });
      const queued = (await upload(owner, file).expect(202)).body.data;
      expect(queued).toEqual({ job_id: expect.any(String), filename: 'batch.xlsx', status: 'pending' });
      const stranger = await createUserWithToken(app);
      await http().get(`/api/jobs/${queued.job_id}/`).set(stranger.auth).expect(404);
      await http().post(`/api/jobs/${queued.job_id}/cancel/`).set(stranger.auth).expect(404);
      await http().get(`/api/jobs/${queued.job_id}/download/`).set(stranger.auth).expect(404);
      const cancelled = await http().post(`/api/jobs/${queued.job_id}/cancel/`).set(owner.auth).expect(200);
      expect(cancelled.body.data).toMatchObject({ status: 'failed', error_message: 'Cancelled by user.' });
      const again = await http().post(`/api/jobs/${queued.job_id}/cancel/`).set(owner.auth).expect(400);
      expect(again.body.errors).toEqual({ status: ['is failed'] });
      await http().get(`/api/jobs/${queued.job_id}/download/`).set(owner.auth).expect(404);
      await http().get('/api/jobs/not-a-uuid/').set(owner.auth).expect(404);
    });
  });

  describe('with a worker', () => {
    beforeAll(async () => {
      worker = await startWorkerProcess({ DATABASE_URL: (database as IsolatedDatabase).url, REDIS_KEY_PREFIX: prefix });
    }, 90_000);

    it('registers every row as pending-review, all at once, and records the batch', async () => {
      const tag = randomUUID().slice(0, 8);
      const file = buildWorkbook({
        metadata: { sesar_code: owner.code, object_type: 'Enter per sample in spreadsheet' },
        headers: HEADERS,
        rows: rowsFor(30, tag),
      });
      const queued = (await upload(owner, file, 'cores.xlsx').expect(202)).body.data;
      const job = await waitForJob(owner, queued.job_id, finished);
      // First, so that a failure shows the rows' own errors rather than only their count.
      expect((job.result as { errors?: unknown[] } | null)?.errors ?? []).toEqual([]);
      expect(job).toMatchObject({ status: 'completed', processed_count: 30, total_count: 30, error_message: null });
      expect(job.result).toMatchObject({ sample_count: 30, status: 'pending-review' });

      const found = await http().get(`/api/samples/?q=${tag}&page_size=100`).set(owner.auth).expect(200);
      expect(found.body.count).toBe(30);
      expect(new Set(found.body.data.map((s: { metadata_store_status: string }) => s.metadata_store_status))).toEqual(
        new Set(['pending-review']),
      );
      expect(found.body.data[0]).toMatchObject({
        country: 'US',
        object_type: 'Core',
        collectors: [{ individual: { label: collector } }],
      });
      expect((await http().get(`/api/samples/?q=${tag}`).expect(200)).body.count).toBe(0); // not public yet

      const batchId = job.result.batch_id;
      const batch = await http().get(`/api/batches/${batchId}/`).set(owner.auth).expect(200);
      expect(batch.body.data).toMatchObject({
        id: batchId,
        sample_count: 30,
        object_type: 'Core',
        registry_code: owner.code,
        filename: 'cores.xlsx',
        status: 'completed',
        user_owner_id: owner.userId,
        owner_name: 'Test User',
      });
      expect(batch.body.data.processed_time).not.toBeNull();
      const completed = await http().get('/api/batches/completed/').set(owner.auth).expect(200);
      expect(completed.body.data.map((b: { id: number }) => b.id)).toContain(batchId);
      const sheet = await http()
        .get(`/api/batches/${batchId}/spreadsheet/`)
        .set(owner.auth)
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(readSamplesSheet(sheet.body as Buffer)[1][1]).toBe(`${tag}-1`);
      const stranger = await createUserWithToken(app);
      await http().get(`/api/batches/${batchId}/`).set(stranger.auth).expect(404);
      await http().get(`/api/batches/${batchId}/spreadsheet/`).set(stranger.auth).expect(404);
    });

    it('links each new row to its own related link, and rows without one to none', async () => {
      const tag = randomUUID().slice(0, 8);
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: [...HEADERS, 'Related URL', 'Related URL Description'],
        rows: rowsFor(3, tag, (i) =>
          i === 2 ? [null, null] : [`https://example.org/${tag}/photo-${i + 1}`, `photo ${i + 1}`],
        ),
      });
      const queued = (await upload(owner, file).expect(202)).body.data;
      const job = await waitForJob(owner, queued.job_id, finished);
      expect((job.result as { errors?: unknown[] } | null)?.errors ?? []).toEqual([]);
      expect(job).toMatchObject({ status: 'completed', processed_count: 3 });
      const found = await http().get(`/api/samples/?q=${tag}&page_size=10`).set(owner.auth).expect(200);
      const byName = new Map(
        (found.body.data as { name: string; related_resources: unknown[] }[]).map((s) => [s.name, s.related_resources]),
      );
      expect(byName.get(`${tag}-1`)).toEqual([
        expect.objectContaining({ uri: `https://example.org/${tag}/photo-1`, description: 'photo 1' }),
      ]);
      expect(byName.get(`${tag}-2`)).toEqual([
        expect.objectContaining({ uri: `https://example.org/${tag}/photo-2`, description: 'photo 2' }),
      ]);
      expect(byName.get(`${tag}-3`)).toEqual([]);
    });

    it('fails the whole batch on one bad row, with an error report naming the row and field', async () => {
      const tag = randomUUID().slice(0, 8);
      const rows = rowsFor(5, tag);
      rows[2][2] = 123; // latitude out of range in sheet row 4
      rows[4][1] = `${tag}-1`; // duplicate name in sheet row 6
      const file = buildWorkbook({ metadata: { registry_code: owner.code }, headers: HEADERS, rows });
      const queued = (await upload(owner, file, 'bad.xlsx').expect(202)).body.data;
      const job = await waitForJob(owner, queued.job_id, finished);
      expect(job.status).toBe('failed');
      expect(job.error_message).toBe(
        '2 of 5 row(s) have errors; nothing was registered. Download the error report for details.',
      );
      expect(job.result.errors).toEqual([
        { row: 4, message: 'latitude: latitude must not be greater than 90' },
        { row: 6, message: 'name: duplicates the name in row 2' },
      ]);
      const report = await http()
        .get(`/api/jobs/${queued.job_id}/download/`)
        .set(owner.auth)
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        })
        .expect(200);
      expect(report.headers['content-disposition']).toContain('bad-errors.xlsx');
      const sheet = readSamplesSheet(report.body as Buffer);
      expect(sheet[0][HEADERS.length]).toBe('Errors');
      expect(sheet[3][HEADERS.length]).toBe('latitude: latitude must not be greater than 90');
      expect(sheet[1][HEADERS.length]).toBeNull();
      expect((await http().get(`/api/samples/?q=${tag}`).set(owner.auth).expect(200)).body.count).toBe(0);
    });

    it('registers drafts without coordinates when save_as_draft is set', async () => {
      const tag = randomUUID().slice(0, 8);
      const file = buildWorkbook({
        headers: ['Sample Name', 'Object Type'],
        rows: [
          [`${tag}-a`, 'Core'],
          [`${tag}-b`, 'Core'],
        ],
      });
      const queued = (
        await upload(owner, file, 'drafts.xlsx', { save_as_draft: 'true', registry_code: owner.code }).expect(202)
      ).body.data;
      const job = await waitForJob(owner, queued.job_id, finished);
      expect(job.status).toBe('completed');
      const found = await http().get(`/api/samples/?q=${tag}&is_draft=true`).set(owner.auth).expect(200);
      expect(found.body.count).toBe(2);
      // without save_as_draft the same rows need coordinates
      const strict = (
        await upload(owner, file, 'strict.xlsx', { registry_code: owner.code, allow_duplicate: 'true' }).expect(202)
      ).body.data;
      expect((await waitForJob(owner, strict.job_id, finished)).status).toBe('failed');
    });

    it('updates existing samples named by IGSN (an edited export re-uploaded), only where the uploader may edit', async () => {
      const tag = randomUUID().slice(0, 8);
      const mine = (
        await http()
          .post('/api/samples/')
          .set(owner.auth)
          .send({
            registry_code: owner.code,
            name: `${tag}-mine`,
            object_type: 'Core',
            latitude: 1,
            longitude: 2,
            other_names: ['old'],
          })
          .expect(201)
      ).body.data;
      const headers = [
        'IGSN',
        'Sample Name',
        'Sample Description',
        'Other Name(s)',
        'Latitude (WGS84)',
        'Longitude (WGS84)',
        'Object Type',
      ];
      const rows = [
        [mine.igsn, `${tag}-mine`, 'described in the spreadsheet', 'new one; new two', null, null, null],
        [null, `${tag}-fresh`, 'a new sample', null, 10, 20, 'Core'],
      ];
      const file = buildWorkbook({ metadata: { registry_code: owner.code }, headers, rows });
      const job = await waitForJob(
        owner,
        (await upload(owner, file, 'edited.xlsx').expect(202)).body.data.job_id,
        finished,
      );
      expect(job).toMatchObject({ status: 'completed', result: { sample_count: 1, updated_count: 1 } });
      const updated = (await http().get(`/api/samples/${mine.igsn}/`).set(owner.auth).expect(200)).body.data;
      expect(updated).toMatchObject({
        sample_description: 'described in the spreadsheet',
        other_names: ['new one', 'new two'],
        latitude: 1,
        metadata_store_status: 'published',
      });
      expect((await http().get(`/api/samples/?q=${tag}`).set(owner.auth).expect(200)).body.count).toBe(2);

      const stranger = await createRegistrant(app);
      const theirs = buildWorkbook({ metadata: { registry_code: stranger.code }, headers, rows: [rows[0]] });
      const refused = await waitForJob(
        stranger,
        (await upload(stranger, theirs).expect(202)).body.data.job_id,
        finished,
      );
      expect(refused.status).toBe('failed');
      expect(refused.result.errors[0].message).toBe(`igsn: ${mine.igsn} is already registered and you may not edit it`);
    });

    it('gives a batch to the team owning its registry code, also when the code comes from the Metadata sheet', async () => {
      const accounts = app.get(AccountsService);
      const team = `team-${randomUUID().slice(0, 8)}`;
      await accounts.createTeam(team);
      const uploader = await createUserWithToken(app);
      const viewer = await createUserWithToken(app);
      await accounts.addTeamMember(team, uploader.email, 'editor');
      await accounts.addTeamMember(team, viewer.email, 'viewer');
      const code = await createFreshRegistryCode(accounts, { team });
      const file = buildWorkbook({
        metadata: { registry_code: code },
        headers: HEADERS,
        rows: rowsFor(2, randomUUID().slice(0, 8)),
      });
      const job = await waitForJob(uploader, (await upload(uploader, file).expect(202)).body.data.job_id, finished);
      expect(job.status).toBe('completed');
      const seen = await http().get(`/api/batches/${job.result.batch_id}/`).set(viewer.auth).expect(200);
      expect(seen.body.data).toMatchObject({ team_owner_name: team, registry_code: code });
    });
  });
});
