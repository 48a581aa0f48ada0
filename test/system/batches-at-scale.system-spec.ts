import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { QueueName } from '../../src/core/queue/queue-names';
import { createRegistrant } from '../support/auth';
import { jobFinished, waitForJob as waitForJobState, waitForQueueEntrySettled } from '../support/jobs';
import { createTestApp } from '../support/test-app';
import { WorkerProcess, startWorkerProcess } from '../support/worker-process';
import { buildWorkbook } from '../support/workbooks';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
const HEADERS = ['Object Type', 'Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)', 'Country', 'Collector'];

interface JobBody {
  status: string;
  processed_count: number;
  error_message: string | null;
  result: { batch_id: number };
}

/** 20,000-row batches through a real worker process: cancelled while processing, and killed mid-batch. */
describe('batches at scale', () => {
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createRegistrant(app);
    worker = await startWorkerProcess();
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await app.close();
  });

  const rowsFor = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, i) => [
      'Core',
      `${prefix}-${i + 1}`,
      40 + i / 10000,
      -70,
      'United States',
      'Marie Tharp',
    ]);
  const upload = (who: { auth: { Authorization: string } }, file: Buffer, filename: string) =>
    http().post('/api/batches/upload/').set(who.auth).attach('file', file, filename);
  const waitForJob = (
    who: { auth: { Authorization: string } },
    jobId: string,
    until: (job: JobBody) => boolean,
    timeoutMs = 60_000,
  ) => waitForJobState<JobBody>(app, who, jobId, { until, timeoutMs });
  const finished = jobFinished;

  it('cancels a processing job: it rolls back and registers nothing', async () => {
    const tag = randomUUID().slice(0, 8);
    const file = buildWorkbook({
      metadata: { registry_code: owner.code },
      headers: HEADERS,
      rows: rowsFor(20_000, tag),
    });
    const queued = (await upload(owner, file, 'cancel-me.xlsx').expect(202)).body.data;
    await waitForJob(owner, queued.job_id, (job) => job.status === 'processing' && job.processed_count > 0);
    await http().post(`/api/jobs/${queued.job_id}/cancel/`).set(owner.auth).expect(200);
    // The running attempt rolls back at its next chunk: wait until it has stopped.
    await waitForQueueEntrySettled(app, QueueName.BatchRegistration, queued.job_id);
    const job = (await http().get(`/api/jobs/${queued.job_id}/`).set(owner.auth).expect(200)).body.data;
    expect(job).toMatchObject({ status: 'failed', error_message: 'Cancelled by user.' });
    expect((await http().get(`/api/samples/?q=${tag}`).set(owner.auth).expect(200)).body.count).toBe(0);
  }, 120_000);

  it('survives a worker killed mid-batch: after a restart the batch has exactly 20,000 samples', async () => {
    const tag = randomUUID().slice(0, 8);
    const file = buildWorkbook({
      metadata: { registry_code: owner.code },
      headers: HEADERS,
      rows: rowsFor(20_000, tag),
    });
    const queued = (await upload(owner, file, 'crash.xlsx').expect(202)).body.data;
    await waitForJob(owner, queued.job_id, (job) => job.status === 'processing' && job.processed_count > 0);
    await worker?.kill();
    worker = await startWorkerProcess();
    const job = await waitForJob(owner, queued.job_id, finished, 120_000);
    expect(job).toMatchObject({ status: 'completed', processed_count: 20_000, error_message: null });
    // The list's count may be an estimate above 10,000 (count_exact); the table says exactly.
    const found = await http().get(`/api/samples/?q=${tag}&page_size=1`).set(owner.auth).expect(200);
    expect(found.body.data).toHaveLength(1);
    const [{ count }] = await app
      .get(DataSource)
      .query('SELECT count(*)::int AS count FROM sample WHERE batch_id = $1', [job.result.batch_id]);
    expect(count).toBe(20_000);
  }, 240_000);
});
