import { INestApplication } from '@nestjs/common';
import jsQR from 'jsqr';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import request from 'supertest';
import { LABEL_LAYOUTS, LabelLayoutName, labelPosition } from '../src/modules/labels/label-layouts';
import { createRegistrant, createUserWithToken } from './support/auth';
import { waitForJob } from './support/jobs';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';
import { buildWorkbook } from './support/workbooks';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';

const run = promisify(execFile);
const PUBLIC_URL = 'https://registry.example.org';
/** Resolution the PDF is rendered at to read the codes back (a desktop scanner's). */
const DPI = 200;
const MAX_SAMPLES = 25;

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
interface JobBody {
  status: string;
  job_type: string;
  error_message: string | null;
  processed_count: number;
  total_count: number | null;
  result: { layout: string; sample_count: number; filename: string; batch_id: number };
}

/** The QR code in one region of a rendered page, decoded; undefined when there is none. */
function decodeRegion(page: PNG, x: number, y: number, width: number, height: number): string | undefined {
  const [left, top] = [Math.max(0, Math.floor(x)), Math.max(0, Math.floor(y))];
  const w = Math.min(page.width - left, Math.ceil(width));
  const h = Math.min(page.height - top, Math.ceil(height));
  const pixels = new Uint8ClampedArray(w * h * 4);
  for (let row = 0; row < h; row++) {
    const from = ((top + row) * page.width + left) * 4;
    pixels.set(page.data.subarray(from, from + w * 4), row * w * 4);
  }
  return jsQR(pixels, w, h)?.data;
}

/**
 * Renders the PDF with poppler's pdftoppm (as a print preview would) and decodes the QR code of
 * every label slot of the layout, in label order, stopping at the first empty slot.
 */
async function decodeLabels(pdf: Buffer, layoutName: LabelLayoutName): Promise<{ codes: string[]; pages: number }> {
  const layout = LABEL_LAYOUTS[layoutName];
  const dir = await mkdtemp(join(tmpdir(), 'labels-'));
  try {
    await writeFile(join(dir, 'labels.pdf'), pdf);
    await run('pdftoppm', ['-r', String(DPI), '-png', join(dir, 'labels.pdf'), join(dir, 'page')]);
    const files = (await readdir(dir)).filter((file) => file.endsWith('.png')).sort();
    const pages = await Promise.all(files.map(async (file) => PNG.sync.read(await readFile(join(dir, file)))));
    const scale = DPI / 72;
    const codes: string[] = [];
    for (let index = 0; ; index++) {
      const { page, x, y } = labelPosition(layout, index);
      if (page >= pages.length) break;
      const code = decodeRegion(
        pages[page],
        x * scale,
        y * scale,
        layout.labelWidth * scale,
        layout.labelHeight * scale,
      );
      if (code === undefined) break;
      codes.push(code);
    }
    return { codes, pages: pages.length };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('labels and QR codes', () => {
  let app: INestApplication;
  let worker: WorkerProcess;
  let owner: Registrant;
  let other: Registrant;
  let stranger: { auth: { Authorization: string } };
  const tag = `lbl${randomUUID().slice(0, 8)}`;
  const samples: { igsn: string; name: string }[] = [];
  let draft: { igsn: string };
  const http = () => request(app.getHttpServer());
  const landing = (igsn: string) => `${PUBLIC_URL}/samples/${igsn.split('/').pop()}`;

  const binary = (req: request.Test) =>
    req.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });

  async function labelSheet(who: { auth: { Authorization: string } }, body: Record<string, unknown>) {
    const queued = (await http().post('/api/samples/labels/').set(who.auth).send(body).expect(202)).body.data;
    const job = await waitForJob<JobBody>(app, who, queued.job_id as string, { timeoutMs: 120_000 });
    expect(job).toMatchObject({ status: 'completed', job_type: 'label_sheet', error_message: null });
    const file = await binary(http().get(`/api/jobs/${queued.job_id}/download/`).set(who.auth)).expect(200);
    expect(file.headers['content-type']).toMatch(/^application\/pdf/);
    return { queued, job, pdf: file.body as Buffer };
  }

  beforeAll(async () => {
    worker = await startWorkerProcess();
    app = await createTestApp({
      config: testConfig({ PUBLIC_URL, LABELS_MAX_SAMPLES: String(MAX_SAMPLES) }),
    });
    [owner, other] = await Promise.all([createRegistrant(app), createRegistrant(app)]);
    stranger = await createUserWithToken(app);
    for (let i = 0; i < 23; i++) {
      const res = await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({
          registry_code: owner.code,
          object_type: 'Core',
          name: `${tag} core ${i}`,
          latitude: 10,
          longitude: 20,
          collectors: [{ individual: { label: 'Marie Tharp' } }],
          sampling_start_date: '2020-05-01',
        })
        .expect(201);
      samples.push(res.body.data);
    }
    draft = (
      await http()
        .post('/api/samples/')
        .set(other.auth)
        .send({ registry_code: other.code, object_type: 'Core', name: `${tag} draft`, is_draft: true })
        .expect(201)
    ).body.data;
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await worker?.stop();
  });

  it('prints one label per sample the search finds, each QR code decoding to its sample', async () => {
    const search = await http().get('/api/samples/').query({ q: tag, page_size: 100 }).set(owner.auth).expect(200);
    expect(search.body.count).toBe(23);
    const { queued, job, pdf } = await labelSheet(owner, {
      q: tag,
      layout: 'a4-3x7',
      fields: ['collectors', 'sampling_start_date', 'locality'],
    });
    expect(queued.sample_count).toBe(23);
    expect(job).toMatchObject({ processed_count: 23, total_count: 23, result: { layout: 'a4-3x7', sample_count: 23 } });
    expect(job.result.filename).toMatch(/^labels-a4-3x7-.*\.pdf$/);
    const { codes, pages } = await decodeLabels(pdf, 'a4-3x7');
    expect(pages).toBe(2); // 21 labels a sheet
    // Labels follow the search's order, newest first.
    expect(codes).toEqual(search.body.data.map((sample: { igsn: string }) => landing(sample.igsn)));
    const text = pdf.toString('latin1');
    expect(text).toContain('%PDF-');
  }, 180_000);

  it('prints on a label printer roll, one label a page, and for a batch', async () => {
    const batchFile = buildWorkbook({
      metadata: { registry_code: owner.code, object_type: 'Core' },
      headers: ['Sample Name', 'Latitude', 'Longitude'],
      rows: [
        [`${tag} batch 1`, 1, 2],
        [`${tag} batch 2`, 3, 4],
        [`${tag} batch 3`, 5, 6],
      ],
    });
    const upload = await http()
      .post('/api/batches/upload/')
      .set(owner.auth)
      .attach('file', batchFile, 'labels.xlsx')
      .expect(202);
    const batchJob = await waitForJob<JobBody>(app, owner, upload.body.data.job_id as string, { timeoutMs: 120_000 });
    expect(batchJob.status).toBe('completed');
    const batchId = batchJob.result.batch_id;
    const inBatch = await http()
      .get('/api/samples/')
      .query({ q: `${tag} batch`, page_size: 10 })
      .set(owner.auth)
      .expect(200);
    expect(inBatch.body.count).toBe(3);

    const { pdf, queued } = await labelSheet(owner, { batch_id: batchId, layout: 'roll-2x1in', fields: [] });
    expect(queued.sample_count).toBe(3);
    const { codes, pages } = await decodeLabels(pdf, 'roll-2x1in');
    expect(pages).toBe(3);
    expect(new Set(codes)).toEqual(new Set(inBatch.body.data.map((sample: { igsn: string }) => landing(sample.igsn))));

    // Someone else's batch: its samples are pending review, so none is visible to a stranger.
    const refused = await http()
      .post('/api/samples/labels/')
      .set(stranger.auth)
      .send({ batch_id: batchId })
      .expect(400);
    expect(refused.body.errors).toEqual({ batch_id: ['no sample of this batch is visible to you'] });
  }, 240_000);

  it('refuses what it cannot print with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ q: tag, layout: 'a3-9x9' }, 'layout'],
      [{ q: tag, fields: ['collectors', 'locality', 'country', 'city'] }, 'fields'],
      [{ q: tag, fields: ['favourite_colour'] }, 'fields'],
      [{ q: tag, batch_id: 1 }, 'batch_id'],
      [{ q: `${tag}-nothing` }, 'search'],
      // The owner's 23 samples and the batch's 3 (above): more than LABELS_MAX_SAMPLES.
      [{ q: tag, scope: 'personal' }, 'search'],
      [{ q: tag, scope: 'everything' }, 'scope'],
    ];
    for (const [body, field] of cases) {
      const res = await http().post('/api/samples/labels/').set(owner.auth).send(body).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    await http().post('/api/samples/labels/').send({ q: tag }).expect(401);
  });

  it("serves one sample's QR code as SVG and PNG, with the visibility of fetch", async () => {
    const [sample] = samples;
    const svg = await http().get(`/api/samples/${sample.igsn}/qr.svg`).expect(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.headers['cache-control']).toBe('public, max-age=86400');
    expect(Buffer.isBuffer(svg.body) ? svg.body.toString() : svg.text).toContain('<svg');
    const [prefix, suffix] = sample.igsn.split('/');
    const png = await binary(http().get(`/api/samples/${prefix}/${suffix}/qr.png`).query({ size: '256' })).expect(200);
    expect(png.headers['content-type']).toBe('image/png');
    const image = PNG.sync.read(png.body as Buffer);
    expect(image.width).toBeLessThanOrEqual(256);
    expect(decodeRegion(image, 0, 0, image.width, image.height)).toBe(landing(sample.igsn));

    await http().get(`/api/samples/${draft.igsn}/qr.svg`).expect(401);
    await http().get(`/api/samples/${draft.igsn}/qr.png`).set(stranger.auth).expect(404);
    const mine = await binary(http().get(`/api/samples/${draft.igsn}/qr.png`).set(other.auth)).expect(200);
    expect(mine.headers['cache-control']).toBe('private, no-store');
    await http().get(`/api/samples/${sample.igsn}/qr.png`).query({ size: '10' }).expect(400);
    await http().get(`/api/samples/${sample.igsn}/qr.png`).query({ colour: 'red' }).expect(400);
  });
});
