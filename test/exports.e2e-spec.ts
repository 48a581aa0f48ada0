import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import * as XLSX from 'xlsx';
import { SAMPLE_CSV_COLUMNS } from '../src/modules/metadata-formats/csv.serializer';
import { QueueName } from '../src/core/queue/queue-names';
import { createRegistrant } from './support/auth';
import { jobFinished, waitForJob as waitForJobState, waitForQueueEntrySettled } from './support/jobs';
import { createTestApp } from './support/test-app';
import { IsolatedDatabase, createIsolatedDatabase } from './support/isolated-database';
import { testConfig, testKeyPrefix } from './support/test-environment';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';

type Who = { auth: { Authorization: string } };
type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const FILENAME = /^samples-export-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.(xlsx|csv)$/;

interface JobBody {
  status: string;
  processed_count: number;
  total_count: number | null;
  error_message: string | null;
  payload: Record<string, unknown>;
  result: { format: string; sample_count: number; filename: string; expires_at: string; updated_count?: number };
}

/** RFC 4180, as the export writes it (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += char;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** Rows of a sheet as objects keyed by the header row. */
function sheetObjects(workbook: XLSX.WorkBook, name: string): Record<string, unknown>[] {
  return XLSX.utils.sheet_to_json<Record<string, unknown>>(workbook.Sheets[name], { defval: null });
}

describe('sample exports', () => {
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  let stranger: Registrant;
  const tag = randomUUID().slice(0, 8);
  const samples: Record<'basalt' | 'formula' | 'draft', { igsn: string; [field: string]: unknown }> = {} as never;
  const http = () => request(app.getHttpServer());

  const binary = (req: request.Test) =>
    req.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });

  const waitForJob = (who: Who, jobId: string, until: (job: JobBody) => boolean) =>
    waitForJobState<JobBody>(app, who, jobId, { until });
  const finished = jobFinished;

  /** Exports (parameters in the body), waits for the job, downloads the file. */
  async function exportFile(who: Who, body: Record<string, unknown>) {
    const queued = (await http().post('/api/samples/export/').set(who.auth).send(body).expect(202)).body.data;
    const job = await waitForJob(who, queued.job_id, finished);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    const file = await binary(http().get(`/api/jobs/${queued.job_id}/download/`).set(who.auth)).expect(200);
    return { jobId: queued.job_id as string, job, file: file.body as Buffer, headers: file.headers };
  }

  async function exportCsv(who: Who, body: Record<string, unknown>) {
    const { file, job } = await exportFile(who, { ...body, format: 'csv' });
    const [header, ...rows] = parseCsv(file.toString('utf8').replace(/^\uFEFF/, ''));
    return { job, rows: rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]]))) };
  }

  /**
   * A database and queues of this suite's own: one test holds an exclusive lock on the sample table
   * while a worker must take its export, which other suites' jobs on shared queues would block.
   */
  const prefix = `${testKeyPrefix()}-exports`;
  let database: IsolatedDatabase | undefined;

  beforeAll(async () => {
    database = await createIsolatedDatabase('exports');
    const starting = startWorkerProcess({ DATABASE_URL: database.url, REDIS_KEY_PREFIX: prefix });
    app = await createTestApp({ config: testConfig({ DATABASE_URL: database.url, REDIS_KEY_PREFIX: prefix }) });
    [owner, stranger] = await Promise.all([createRegistrant(app), createRegistrant(app)]);
    type Registered = { igsn: string; [field: string]: unknown };
    const register = async (body: Record<string, unknown>): Promise<Registered> => {
      const res = await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({ registry_code: owner.code, object_type: 'Core', ...body })
        .expect(201);
      return res.body.data as Registered;
    };
    samples.basalt = await register({
      name: `${tag} basalt 1`,
      latitude: -12.5,
      longitude: 130.25,
      elevation: 120.5,
      elevation_unit: 'meters',
      country: 'IE',
      sample_description: '-10 m below the surface, "fresh", no alteration',
      other_names: ['BAS-1', 'Troodos 7'],
      collectors: [{ individual: { label: 'Marie Tharp' }, description: 'chief scientist' }],
      current_archive: { label: `Core store ${tag}` },
      related_resources: [{ uri: 'https://example.org/photos/1', description: 'photo' }],
      sampling_start_date: '2020-05-01',
    });
    samples.formula = await register({
      name: `=HYPERLINK("https://evil.example/${tag}","open")`,
      latitude: 1,
      longitude: 2,
    });
    samples.draft = await register({ name: `${tag} draft`, is_draft: true });
    worker = await starting;
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await database?.drop();
  });

  it('validates the request as the search does, and answers 202 with the job', async () => {
    await http().post('/api/samples/export/').send({ q: tag }).expect(401);
    const bad: [Record<string, unknown>, string][] = [
      [{ format: 'pdf' }, 'format'],
      [{ scope: 'everything' }, 'scope'],
      [{ is_draft: 'maybe' }, 'is_draft'],
      [{ object_type: 'No such type' }, 'object_type'],
      [{ country: 'Ireland' }, 'country'],
      [{ q: 'x'.repeat(256) }, 'q'],
      [{ page: 2 }, 'page'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of bad) {
      const res = await http().post('/api/samples/export/').set(owner.auth).send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    const twice = await http().post('/api/samples/export/?q=a').set(owner.auth).send({ q: 'b' }).expect(400);
    expect(twice.body.errors).toEqual({ q: ['give this parameter once, in the query string or the body'] });
    await http().post('/api/samples/export/?format=pdf').set(owner.auth).expect(400);

    const res = await http()
      .post('/api/samples/export')
      .set(owner.auth)
      .send({ q: ` ${tag} `, format: 'CSV' })
      .expect(202);
    expect(res.body).toEqual({ data: { job_id: expect.any(String), status: 'pending' } });
    const job = await waitForJob(owner, res.body.data.job_id, finished);
    expect(job).toMatchObject({
      status: 'completed',
      processed_count: 3,
      total_count: 3,
      payload: { format: 'csv', query: { q: tag, scope: 'personal' }, user_id: owner.userId },
      result: { format: 'csv', sample_count: 3, filename: expect.stringMatching(FILENAME) },
    });
  });

  it('exports a search as xlsx: a Samples sheet in the batch layout, a hidden Metadata sheet, Details', async () => {
    const { file, job, headers } = await exportFile(owner, { q: tag });
    expect(job.result).toMatchObject({ format: 'xlsx', sample_count: 3 });
    expect(headers['content-type']).toBe(XLSX_TYPE);
    expect(headers['content-disposition']).toContain(`filename="${job.result.filename}"`);

    const workbook = XLSX.read(file, { type: 'buffer' });
    expect(workbook.SheetNames).toEqual(['Samples', 'Metadata', 'Details']);
    expect(workbook.Workbook?.Sheets?.map((sheet) => sheet.Hidden)).toEqual([0, 1, 0]);
    expect(XLSX.utils.sheet_to_json(workbook.Sheets.Metadata, { header: 1 })).toEqual([['registry_code', owner.code]]);

    const rows = sheetObjects(workbook, 'Samples');
    expect(rows.map((row) => row.IGSN)).toEqual([samples.draft.igsn, samples.formula.igsn, samples.basalt.igsn]);
    const header = Object.keys(rows[0]);
    expect(header.slice(0, 3)).toEqual(['Object Type', 'Sample Name', 'IGSN']);
    for (const readOnly of ['Metadata Store Status', 'Created At', 'Can Edit']) {
      expect(header).not.toContain(readOnly);
    }
    const basalt = rows[2];
    expect(basalt).toMatchObject({
      'Object Type': 'Core',
      'Sample Name': `${tag} basalt 1`,
      'Latitude (WGS84)': -12.5,
      'Longitude (WGS84)': 130.25,
      Elevation: 120.5,
      'Elevation Unit': 'meters',
      Country: 'IE',
      'Sample Description': `'-10 m below the surface, "fresh", no alteration`,
      'Other Name(s)': 'BAS-1; Troodos 7',
      Collector: 'Marie Tharp',
      'Collector Detail': 'chief scientist',
      'Current Archive': `Core store ${tag}`,
      'Related URL': 'https://example.org/photos/1',
      'Related URL Description': 'photo',
      'Sampling Start Date': '2020-05-01T00:00:00.000Z',
      'Registry Code': owner.code,
      'Platform Name': null,
    });
    expect(rows[1]['Sample Name']).toBe(`'=HYPERLINK("https://evil.example/${tag}","open")`);
    expect(rows[0]['Latitude (WGS84)']).toBeNull();

    const details = sheetObjects(workbook, 'Details');
    expect(details[2]).toMatchObject({
      IGSN: samples.basalt.igsn,
      'Metadata Store Status': 'published',
      Draft: false,
      'Can Edit': true,
      'User Owner ID': owner.userId,
      'Created At': samples.basalt.created_at,
      Collectors: 'Marie Tharp (chief scientist)',
    });
    expect(details[0]).toMatchObject({ IGSN: samples.draft.igsn, 'Metadata Store Status': 'draft', Draft: true });
  });

  it('exports a search as CSV (parameters in the query string) with every field', async () => {
    const queued = (
      await http()
        .post(`/api/samples/export/?q=${encodeURIComponent(tag)}&format=csv`)
        .set(owner.auth)
        .expect(202)
    ).body.data;
    await waitForJob(owner, queued.job_id, finished);
    const file = await binary(http().get(`/api/jobs/${queued.job_id}/download/`).set(owner.auth)).expect(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(file.headers['content-disposition']).toMatch(/filename="samples-export-.*Z\.csv"/);
    const text = (file.body as Buffer).toString('utf8');
    expect(text.startsWith('\uFEFFIGSN,Sample Name,')).toBe(true);
    const [header, ...rows] = parseCsv(text.slice(1));
    expect(header).toEqual(SAMPLE_CSV_COLUMNS.map((column) => column.header));
    expect(rows).toHaveLength(3);
    const byIgsn = new Map(rows.map((row) => [row[0], Object.fromEntries(header.map((name, i) => [name, row[i]]))]));
    expect(byIgsn.get(samples.basalt.igsn)).toMatchObject({
      'Sample Name': `${tag} basalt 1`,
      'Registry Code': owner.code,
      'Latitude (WGS84)': '-12.5',
      'Longitude (WGS84)': '130.25',
      'Sample Description': `'-10 m below the surface, "fresh", no alteration`,
      Collectors: 'Marie Tharp (chief scientist)',
      'Metadata Store Status': 'published',
      'Created At': samples.basalt.created_at,
      'Can Edit': 'true',
    });
    expect(byIgsn.get(samples.formula.igsn)?.['Sample Name']).toBe(`'=HYPERLINK("https://evil.example/${tag}","open")`);
    expect(byIgsn.get(samples.draft.igsn)).toMatchObject({ Draft: 'true', 'Latitude (WGS84)': '' });
  });

  it("never exports another user's drafts; scope=public never exports drafts", async () => {
    expect((await exportCsv(stranger, { q: tag })).rows).toHaveLength(0);
    expect((await exportCsv(stranger, { q: tag, scope: 'personal_and_shared' })).rows).toHaveLength(0);
    const published = [samples.formula.igsn, samples.basalt.igsn];
    for (const who of [stranger, owner]) {
      const { rows, job } = await exportCsv(who, { q: tag, scope: 'public' });
      expect(rows.map((row) => row.IGSN)).toEqual(published);
      expect(job.result.sample_count).toBe(2);
    }
    const drafts = await exportCsv(owner, { q: tag, is_draft: true });
    expect(drafts.rows.map((row) => row.IGSN)).toEqual([samples.draft.igsn]);
  });

  it('round trip: an edited xlsx export uploaded as a batch updates the same samples', async () => {
    const { file } = await exportFile(owner, { name: `${tag} basalt` });
    const workbook = XLSX.read(file, { type: 'buffer' });
    const sheet = workbook.Sheets.Samples;
    const grid = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, defval: null });
    expect(grid).toHaveLength(2);
    const column = grid[0].indexOf('Sample Description');
    sheet[XLSX.utils.encode_cell({ r: 1, c: column })] = { t: 's', v: 'Re-described in the exported workbook' };
    const edited = XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx' }) as Buffer;

    const queued = (
      await http().post('/api/batches/upload/').set(owner.auth).attach('file', edited, 'edited-export.xlsx').expect(202)
    ).body.data;
    const job = await waitForJob(owner, queued.job_id, finished);
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    expect(job.result).toMatchObject({ sample_count: 0, updated_count: 1 });

    const after = (await http().get(`/api/samples/${samples.basalt.igsn}/`).set(owner.auth).expect(200)).body.data;
    expect(after).toMatchObject({
      sample_description: 'Re-described in the exported workbook',
      name: samples.basalt.name,
      latitude: -12.5,
      other_names: ['BAS-1', 'Troodos 7'],
      country: 'IE',
      metadata_store_status: 'published',
      collectors: [{ individual: { label: 'Marie Tharp' }, description: 'chief scientist' }],
      current_archive: { label: `Core store ${tag}` },
      related_resources: [{ uri: 'https://example.org/photos/1', description: 'photo' }],
      sampling_start_date: samples.basalt.sampling_start_date,
    });
    expect((await http().get(`/api/samples/?q=${tag}`).set(owner.auth).expect(200)).body.count).toBe(3);
  });

  it("cancels an export that is processing: no file; another user's job is 404", async () => {
    const canceller = await createRegistrant(app);
    await http()
      .post('/api/samples/')
      .set(canceller.auth)
      .send({ registry_code: canceller.code, name: `${tag} cancelled`, object_type: 'Core', latitude: 1, longitude: 2 })
      .expect(201);
    const dataSource = app.get(DataSource);
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    let jobId = '';
    try {
      // Hold the worker at its first read of the sample table, so the job is reliably mid-way;
      // once released it reads its one page, sees the cancel and stops.
      await runner.startTransaction();
      await runner.query('LOCK TABLE sample IN ACCESS EXCLUSIVE MODE');
      jobId = (await http().post('/api/samples/export/').set(canceller.auth).send({}).expect(202)).body.data.job_id;
      await waitForJob(canceller, jobId, (job) => job.status === 'processing');
      for (const path of [`/api/jobs/${jobId}/`, `/api/jobs/${jobId}/download/`]) {
        await http().get(path).set(stranger.auth).expect(404);
      }
      await http().post(`/api/jobs/${jobId}/cancel/`).set(stranger.auth).expect(404);
      const cancelled = await http().post(`/api/jobs/${jobId}/cancel/`).set(canceller.auth).expect(200);
      expect(cancelled.body.data).toMatchObject({ status: 'failed', error_message: 'Cancelled by user.' });
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
    // The attempt that was running reads its page, sees the cancel and stops: wait for that.
    await waitForQueueEntrySettled(app, QueueName.SampleExport, jobId);
    const job = (await http().get(`/api/jobs/${jobId}/`).set(canceller.auth).expect(200)).body.data;
    expect(job).toMatchObject({ status: 'failed', error_message: 'Cancelled by user.', result: null });
    await http().get(`/api/jobs/${jobId}/download/`).set(canceller.auth).expect(404);
    const [{ count }] = await dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM stored_file WHERE owner_user_id = $1',
      [canceller.userId],
    );
    expect(count).toBe(0);
  });

  it('keeps the file for EXPORT_TTL (24 h by default); after that the download is a 404 error body', async () => {
    const { jobId, job } = await exportFile(owner, { q: tag, format: 'csv' });
    const dataSource = app.get(DataSource);
    const [file] = await dataSource.query<{ id: string; expires_at: Date }[]>(
      'SELECT f.id, f.expires_at FROM stored_file f JOIN background_job j ON j.result_file_id = f.id WHERE j.id = $1',
      [jobId],
    );
    const hours = (file.expires_at.getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    expect(job.result.expires_at).toBe(file.expires_at.toISOString());

    await dataSource.query("UPDATE stored_file SET expires_at = now() - interval '1 second' WHERE id = $1", [file.id]);
    const gone = await http().get(`/api/jobs/${jobId}/download/`).set(owner.auth).expect(404);
    expect(gone.body).toEqual({ message: 'This job has no file to download (or it has expired).', errors: {} });
    await http().get(`/api/jobs/${jobId}/`).set(owner.auth).expect(200);
  });
});
