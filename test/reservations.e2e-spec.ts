import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createRegistrant, createUserWithToken } from './support/auth';
import { waitForJob } from './support/jobs';
import { createTestApp } from './support/test-app';
import { buildWorkbook } from './support/workbooks';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

describe('reserved IGSNs (POST /api/samples/reserve/)', () => {
  let app: INestApplication;
  let worker: WorkerProcess;
  let owner: Registrant;
  let stranger: Awaited<ReturnType<typeof createUserWithToken>>;
  const prefix = `Cruise ${randomUUID().slice(0, 8)}`;
  let reserved: string[];
  const http = () => request(app.getHttpServer());
  const reservedCount = async () =>
    (
      await http()
        .get('/api/samples/')
        .query({ metadata_store_status: 'reserved', page_size: 1 })
        .set(owner.auth)
        .expect(200)
    ).body.count as number;

  beforeAll(async () => {
    worker = await startWorkerProcess();
    app = await createTestApp();
    owner = await createRegistrant(app);
    stranger = await createUserWithToken(app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await worker?.stop();
  });

  it('mints reserved samples: owned, not public, no object type or coordinates needed', async () => {
    const res = await http()
      .post('/api/samples/reserve/')
      .set(owner.auth)
      .send({ registry_code: owner.code.toLowerCase(), count: 5, name_prefix: prefix })
      .expect(201);
    expect(res.body.data).toMatchObject({ registry_code: owner.code, count: 5, job_id: null });
    reserved = res.body.data.igsns as string[];
    expect(reserved).toHaveLength(5);
    expect(new Set(reserved).size).toBe(5);
    const sample = (await http().get(`/api/samples/${reserved[0]}/`).set(owner.auth).expect(200)).body.data;
    expect(sample).toMatchObject({
      igsn: reserved[0],
      name: `${prefix} ${reserved[0].split('/').pop()}`,
      metadata_store_status: 'reserved',
      object_type: null,
      latitude: null,
      publish_date: null,
      user_owner: owner.userId,
    });
    await http().get(`/api/samples/${reserved[0]}/`).expect(401);
    await http().get(`/api/samples/${reserved[0]}/`).set(stranger.auth).expect(404);
    await http()
      .get(`/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=doi:${reserved[0]}`)
      .expect(200, /idDoesNotExist/);
  });

  it('lists them only when asked for with ?metadata_store_status=reserved', async () => {
    expect(await reservedCount()).toBe(5);
    const mine = await http().get('/api/samples/').query({ q: prefix }).set(owner.auth).expect(200);
    expect(mine.body.count).toBe(0);
    const asked = await http()
      .get('/api/samples/')
      .query({ q: prefix, metadata_store_status: 'reserved' })
      .set(owner.auth)
      .expect(200);
    expect(asked.body.count).toBe(5);
    await http().get('/api/samples/').query({ metadata_store_status: 'lost' }).set(owner.auth).expect(400);
  });

  it('is completed by PATCH: published by the rules of a registration, or kept as a draft', async () => {
    const missing = await http()
      .patch(`/api/samples/${reserved[0]}/`)
      .set(owner.auth)
      .send({ name: 'Core 1' })
      .expect(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['latitude', 'longitude', 'object_type']);
    const published = await http()
      .patch(`/api/samples/${reserved[0]}/`)
      .set(owner.auth)
      .send({ name: 'Core 1', object_type: 'Core', latitude: 41.5, longitude: -72.8 })
      .expect(200);
    expect(published.body.data).toMatchObject({ metadata_store_status: 'published', object_type: 'Core' });
    expect(published.body.data.publish_date).toEqual(expect.any(String));
    await http().get(`/api/samples/${reserved[0]}/`).expect(200);

    const noType = await http()
      .patch(`/api/samples/${reserved[1]}/`)
      .set(owner.auth)
      .send({ is_draft: true })
      .expect(400);
    expect(Object.keys(noType.body.errors)).toEqual(['object_type']);
    const draft = await http()
      .patch(`/api/samples/${reserved[1]}/`)
      .set(owner.auth)
      .send({ is_draft: true, object_type: 'Dredge' })
      .expect(200);
    expect(draft.body.data).toMatchObject({ metadata_store_status: 'draft', is_draft: true, latitude: null });
    expect(await reservedCount()).toBe(3);
  });

  it('is completed by a batch row naming its IGSN, as the batch stores its new samples', async () => {
    const file = buildWorkbook({
      metadata: { registry_code: owner.code, object_type: 'Core' },
      headers: ['IGSN', 'Sample Name', 'Latitude', 'Longitude'],
      rows: [[reserved[3], 'Core 4 from the batch', 12.5, 45.25]],
    });
    const upload = await http().post('/api/batches/upload/').set(owner.auth).attach('file', file, 'complete.xlsx');
    expect(upload.status).toBe(202);
    const job = await waitForJob<{ status: string; error_message: string | null; result: { batch_id: number } }>(
      app,
      owner,
      upload.body.data.job_id as string,
      { timeoutMs: 120_000 },
    );
    expect(job).toMatchObject({ status: 'completed', error_message: null });
    const sample = (await http().get(`/api/samples/${reserved[3]}/`).set(owner.auth).expect(200)).body.data;
    expect(sample).toMatchObject({
      name: 'Core 4 from the batch',
      object_type: 'Core',
      metadata_store_status: 'pending-review',
      batch_id: job.result.batch_id,
    });
  }, 180_000);

  it('releases an unused reservation by deactivating it; it stays unknown to others', async () => {
    await http()
      .post(`/api/samples/${reserved[2]}/deactivate/`)
      .set(owner.auth)
      .send({ reason: 'other', comment: 'not used on the cruise' })
      .expect(200);
    expect(await reservedCount()).toBe(1);
    await http().get(`/api/samples/${reserved[2]}/`).set(stranger.auth).expect(404);
  });

  it('refuses bad reservations', async () => {
    const other = await createRegistrant(app);
    for (const count of [0, 10_001, 2.5, 'three']) {
      const res = await http().post('/api/samples/reserve/').set(owner.auth).send({ registry_code: owner.code, count });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['count']);
    }
    await http()
      .post('/api/samples/reserve/')
      .set(owner.auth)
      .send({ registry_code: other.code, count: 1 })
      .expect(403);
    await http().post('/api/samples/reserve/').set(owner.auth).send({ registry_code: 'ZZZ', count: 1 }).expect(400);
    const noUpload = await createUserWithToken(app, { uploadPermission: false });
    await http()
      .post('/api/samples/reserve/')
      .set(noUpload.auth)
      .send({ registry_code: owner.code, count: 1 })
      .expect(403);
    await http().post('/api/samples/reserve/').send({ registry_code: owner.code, count: 1 }).expect(401);
    expect(await reservedCount()).toBe(1);
  });

  it('reserves more than 1,000 in a background job with progress', async () => {
    const res = await http()
      .post('/api/samples/reserve/')
      .set(owner.auth)
      .send({ registry_code: owner.code, count: 1500 })
      .expect(202);
    expect(res.body.data).toMatchObject({ count: 1500, igsns: null, job_id: expect.any(String) });
    const job = await waitForJob<{
      status: string;
      processed_count: number;
      total_count: number;
      result: { igsns: string[] };
    }>(app, owner, res.body.data.job_id as string, { timeoutMs: 180_000 });
    expect(job).toMatchObject({ status: 'completed', processed_count: 1500, total_count: 1500 });
    expect(new Set(job.result.igsns).size).toBe(1500);
    expect(await reservedCount()).toBe(1501);
  }, 240_000);
});
