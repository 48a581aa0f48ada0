import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import * as XLSX from 'xlsx';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { fixturePath } from './fixtures/fixtures';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { IsolatedDatabase, createIsolatedDatabase } from './support/isolated-database';
import { createTestApp } from './support/test-app';
import { testKeyPrefix } from './support/test-environment';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook, readSamplesSheet } from './support/workbooks';
import { zip } from './support/zip';
import { waitForJob as waitForJobState } from './support/jobs';

type Who = { auth: { Authorization: string } };
type Registrant = TestUser & { code: string };

interface JobBody {
  status: string;
  processed_count: number;
  total_count: number | null;
  error_message: string | null;
  result: { batch_id: number; sample_count: number; errors: { row: number; message: string }[] };
}

interface CatalogueField {
  key: string;
  label: string;
  type: string;
  vocabulary: string | null;
  vocabulary_endpoint: string | null;
  aliases: string[];
  batch_column: boolean;
  always_in_template: boolean;
  help: string | null;
}

/** The registry of the reference workbook, whose Parent IGSN cells are DOIs under this prefix. */
const DOI_PREFIX = '10.58052';

const xmlText = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const columnName = (index: number) => XLSX.utils.encode_col(index);

/**
 * An .xlsx written part by part, whose Samples sheet declares `dimension` whatever it holds (as
 * writers that do not update it after appending rows leave it).
 */
function workbookWithDimension(rows: (string | number)[][], dimension: string): Buffer {
  const sheetRows = rows
    .map((cells, r) => {
      const xml = cells
        .map((value, c) => {
          const ref = `${columnName(c)}${r + 1}`;
          return typeof value === 'number'
            ? `<c r="${ref}"><v>${value}</v></c>`
            : `<c r="${ref}" t="inlineStr"><is><t>${xmlText(value)}</t></is></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${xml}</row>`;
    })
    .join('');
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const parts: Record<string, string> = {
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
      '</Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${main}" xmlns:r="${rel}"><sheets><sheet name="Samples" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${main}"><dimension ref="${dimension}"/><sheetData>${sheetRows}</sheetData></worksheet>`,
  };
  return zip(Object.entries(parts).map(([name, data]) => ({ name, data: Buffer.from(data) })));
}

describe('spreadsheet integrity (issue 13, section 2)', () => {
  let database: IsolatedDatabase;
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  const http = () => request(app.getHttpServer());

  // A registry of its own, with the reference workbook's DOI prefix: its queues, its database
  // (the workbook's registry code IEFAK is minted from 1 there) and its worker.
  beforeAll(async () => {
    const prefix = `${testKeyPrefix()}-sheets`;
    database = await createIsolatedDatabase('sheets');
    app = await createTestApp({
      config: {
        ...database.config,
        redis: { ...database.config.redis, keyPrefix: prefix },
        igsn: { ...database.config.igsn, doiPrefix: DOI_PREFIX },
      },
    });
    owner = await createRegistrant(app);
    worker = await startWorkerProcess({
      DATABASE_URL: database.url,
      REDIS_KEY_PREFIX: prefix,
      IGSN_DOI_PREFIX: DOI_PREFIX,
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await database?.drop();
  });

  const binary = (req: request.Test) =>
    req.buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });

  const upload = (who: Who, file: Buffer, fields: Record<string, string> = {}, filename = 'batch.xlsx') => {
    const req = http().post('/api/batches/upload/').set(who.auth).attach('file', file, filename);
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return req;
  };

  const waitForJob = (who: Who, jobId: string) => waitForJobState<JobBody>(app, who, jobId);

  /** Uploads, waits, and returns the finished job. */
  async function register(who: Who, file: Buffer, fields: Record<string, string> = {}): Promise<JobBody> {
    const queued = (await upload(who, file, fields).expect(202)).body.data;
    return waitForJob(who, queued.job_id);
  }

  async function samplesNamed(who: Who, tag: string) {
    const res = await http().get(`/api/samples/?q=${tag}&page_size=100`).set(who.auth).expect(200);
    return new Map<string, Record<string, unknown>>(
      (res.body.data as Record<string, unknown>[]).map((sample) => [sample.name as string, sample]),
    );
  }

  const tagged = () => randomUUID().slice(0, 8);

  describe('the field catalogue', () => {
    let catalogue: CatalogueField[];
    const byKey = (key: string) => catalogue.find((field) => field.key === key) as CatalogueField;

    beforeAll(async () => {
      catalogue = (await http().get('/api/batch-templates/fields/').expect(200)).body.data;
    });

    it('lists every column once, with label, type, vocabulary endpoint and aliases, without a token', async () => {
      expect(catalogue.length).toBeGreaterThan(60);
      const columnOf = new Map<string, string>();
      for (const field of catalogue) {
        for (const header of [field.key, field.label, ...field.aliases].map((h) => h.toLowerCase())) {
          expect([header, columnOf.get(header) ?? field.key]).toEqual([header, field.key]); // one column per header
          columnOf.set(header, field.key);
        }
      }
      expect(byKey('geologic_age_verbatim')).toEqual({
        key: 'geologic_age_verbatim',
        label: 'Geologic Age',
        type: 'text',
        vocabulary: null,
        vocabulary_endpoint: null,
        aliases: ['Geological Age'],
        batch_column: true,
        always_in_template: false,
        help: null,
      });
      expect(byKey('registry_code')).toMatchObject({ label: 'Registry Code', batch_column: true });
      expect(byKey('registry_code').aliases).toEqual(expect.arrayContaining(['SESAR Code', 'sesar_code']));
      expect(byKey('latitude')).toMatchObject({ type: 'number', always_in_template: true });
      expect(byKey('created_at')).toMatchObject({ type: 'datetime', batch_column: false, help: null });
      for (const field of catalogue.filter((f) => f.vocabulary_endpoint)) {
        const list = await http()
          .get(field.vocabulary_endpoint as string)
          .expect(200);
        expect([field.key, Array.isArray(list.body.data)]).toEqual([field.key, true]);
      }
      expect(byKey('country').vocabulary_endpoint).toBe('/api/countries/');
    });

    it('names the columns the same in the template, the upload, the JSON API, the CSV and the xlsx export', async () => {
      const batchColumns = catalogue.filter((field) => field.batch_column);
      const template = (
        await http()
          .post('/api/batch-templates/')
          .set(owner.auth)
          .send({ label: 'every column', registry_code: owner.code, selected_fields: batchColumns.map((f) => f.key) })
          .expect(201)
      ).body.data;
      const workbook = await binary(http().get(`/api/batch-templates/${template.id}/spreadsheet/`).set(owner.auth));
      expect(readSamplesSheet(workbook.body as Buffer)[0]).toEqual(batchColumns.map((field) => field.label));

      // An upload with the earlier label (an alias) and one with the label land in the same JSON field.
      const tag = tagged();
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['Object Type', 'Sample Name', 'Latitude', 'Longitude', 'Geological Age'],
        rows: [['Core', `${tag}-alias`, 41.5, -72.8, 'Miocene']],
      });
      expect((await register(owner, file)).status).toBe('completed');
      const sample = (await samplesNamed(owner, tag)).get(`${tag}-alias`) as Record<string, unknown>;
      expect(sample.geologic_age_verbatim).toBe('Miocene');

      const exported = async (format: 'csv' | 'xlsx') => {
        const queued = (await http().post('/api/samples/export/').set(owner.auth).send({ q: tag, format }).expect(202))
          .body.data;
        expect((await waitForJob(owner, queued.job_id)).status).toBe('completed');
        return (await binary(http().get(`/api/jobs/${queued.job_id}/download/`).set(owner.auth)).expect(200))
          .body as Buffer;
      };
      const csvHeader = (await exported('csv'))
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .split('\r\n')[0]
        .split(',');
      const labelOf = new Map(catalogue.map((field) => [field.key, field.label]));
      expect(csvHeader).toContain('Geologic Age');
      expect(csvHeader).not.toContain('Geological Age');
      for (const header of csvHeader) expect(catalogue.map((f) => f.label)).toContain(header);
      // every JSON field of the sample is a CSV column, under the catalogue's label
      expect([...csvHeader].sort()).toEqual(
        Object.keys(sample)
          .map((key) => labelOf.get(key))
          .sort(),
      );

      const xlsx = XLSX.read(await exported('xlsx'), { type: 'buffer' });
      const rows = XLSX.utils.sheet_to_json<unknown[]>(xlsx.Sheets.Samples, { header: 1 });
      expect(rows[0]).toEqual(batchColumns.map((field) => field.label));
      const cell = (label: string) => rows[1][(rows[0] as string[]).indexOf(label)];
      expect(cell('Geologic Age')).toBe('Miocene');
      expect(cell('Registry Code')).toBe(owner.code);
    });
  });

  it('reads a Registry Code, registry_code or SESAR Code column (CONTRACT §5)', async () => {
    const tag = tagged();
    for (const header of ['Registry Code', 'registry_code', 'SESAR Code']) {
      const file = buildWorkbook({
        headers: [header, 'Object Type', 'Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)'],
        rows: [[owner.code, 'Core', `${tag}-${header}`, 41.5, -72.8]],
      });
      const job = await register(owner, file);
      expect([header, job.status, job.error_message]).toEqual([header, 'completed', null]);
    }
    const found = await samplesNamed(owner, tag);
    expect([...found.values()].map((sample) => sample.registry_code)).toEqual([owner.code, owner.code, owner.code]);

    // A code of someone else in the column is that row's error, not a silent fallback.
    const other = await createRegistrant(app);
    const job = await register(
      owner,
      buildWorkbook({
        headers: ['Registry Code', 'Object Type', 'Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)'],
        rows: [[other.code, 'Core', `${tag}-theirs`, 41.5, -72.8]],
      }),
    );
    expect(job.status).toBe('failed');
    expect(job.result.errors).toEqual([
      { row: 2, message: `You may not register samples under registry code ${other.code}.` },
    ]);
  });

  it('reads several collectors in one cell, each with its detail, and refuses details it cannot pair', async () => {
    const tag = tagged();
    const headers = [
      'Object Type',
      'Sample Name',
      'Latitude (WGS84)',
      'Longitude (WGS84)',
      'Collector',
      'Collector Detail',
    ];
    const ok = buildWorkbook({
      metadata: { registry_code: owner.code },
      headers,
      rows: [
        ['Core', `${tag}-two`, 41.5, -72.8, 'Ann Smith; Bo Lee', ''],
        ['Core', `${tag}-details`, 41.5, -72.8, 'Ann Smith;Bo Lee ; Cy Diaz', 'chief scientist; ; student, year 2'],
        ['Core', `${tag}-one`, 41.5, -72.8, 'Marie Tharp', 'mapped the ridge; drew the map'],
      ],
    });
    expect((await register(owner, ok)).status).toBe('completed');
    const found = await samplesNamed(owner, tag);
    const collectors = (name: string) =>
      (found.get(`${tag}-${name}`)?.collectors as { individual: { label: string }; description: string | null }[]).map(
        (c) => [c.individual.label, c.description],
      );
    expect(collectors('two')).toEqual([
      ['Ann Smith', null],
      ['Bo Lee', null],
    ]);
    expect(collectors('details')).toEqual([
      ['Ann Smith', 'chief scientist'],
      ['Bo Lee', null],
      ['Cy Diaz', 'student, year 2'],
    ]);
    expect(collectors('one')).toEqual([['Marie Tharp', 'mapped the ridge; drew the map']]);

    const ambiguous = buildWorkbook({
      metadata: { registry_code: owner.code },
      headers,
      rows: [['Core', `${tag}-ambiguous`, 41.5, -72.8, 'Ann Smith; Bo Lee', 'chief scientist']],
    });
    const job = await register(owner, ambiguous);
    expect(job.status).toBe('failed');
    expect(job.result.errors).toEqual([
      {
        row: 2,
        message: 'collector_detail: names 2 collectors but has 1 detail(s); give one per collector, separated by ;',
      },
    ]);
  });

  describe('Parent IGSN within the file', () => {
    it('links a parent in a row below or above, by the IGSN in its IGSN column', async () => {
      const tag = tagged();
      const igsn = (n: number) => `${owner.code}${tag.toUpperCase()}${n}`;
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['Object Type', 'Sample Name', 'IGSN', 'Parent IGSN', 'Latitude (WGS84)', 'Longitude (WGS84)'],
        rows: [
          ['Core', `${tag}-child`, igsn(2), `${DOI_PREFIX}/${igsn(1)}`, 41.5, -72.8],
          ['Core', `${tag}-parent`, igsn(1), '', 41.5, -72.8],
          ['Core', `${tag}-grandchild`, '', igsn(2).toLowerCase(), 41.5, -72.8],
        ],
      });
      const job = await register(owner, file);
      expect([job.status, job.error_message]).toEqual(['completed', null]);
      const found = await samplesNamed(owner, tag);
      expect(found.get(`${tag}-child`)?.parent_sample).toBe(`${DOI_PREFIX}/${igsn(1)}`);
      expect(found.get(`${tag}-grandchild`)?.parent_sample).toBe(`${DOI_PREFIX}/${igsn(2)}`);
      expect(found.get(`${tag}-parent`)?.parent_sample).toBeNull();
    });

    it('refuses a cycle, the sample itself, a stranger’s draft and an unknown IGSN, each on its row', async () => {
      const tag = tagged();
      const igsn = (n: number) => `${owner.code}${tag.toUpperCase()}${n}`;
      const stranger = await createRegistrant(app);
      const hidden = (
        await http()
          .post('/api/samples/')
          .set(stranger.auth)
          .send({ registry_code: stranger.code, name: `${tag}-hidden`, object_type: 'Core', is_draft: true })
          .expect(201)
      ).body.data.igsn as string;
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: ['Object Type', 'Sample Name', 'IGSN', 'Parent IGSN', 'Latitude (WGS84)', 'Longitude (WGS84)'],
        rows: [
          ['Core', `${tag}-a`, igsn(1), igsn(2), 41.5, -72.8],
          ['Core', `${tag}-b`, igsn(2), igsn(1), 41.5, -72.8],
          ['Core', `${tag}-self`, igsn(3), igsn(3), 41.5, -72.8],
          ['Core', `${tag}-hidden`, '', hidden, 41.5, -72.8],
          ['Core', `${tag}-unknown`, '', `${owner.code}ZZZZZZZ`, 41.5, -72.8],
        ],
      });
      const job = await register(owner, file);
      expect(job.status).toBe('failed');
      expect(job.result.errors).toEqual([
        { row: 2, message: `parent_sample: ${igsn(2)} is a descendant of this sample in the same file (a cycle)` },
        { row: 3, message: `parent_sample: ${igsn(1)} is a descendant of this sample in the same file (a cycle)` },
        { row: 4, message: 'parent_sample: cannot be the sample itself' },
        { row: 5, message: `parent_sample: no sample with IGSN ${hidden} is visible to you` },
        { row: 6, message: `parent_sample: no sample with IGSN ${owner.code}ZZZZZZZ is visible to you` },
      ]);
      expect((await samplesNamed(owner, tag)).size).toBe(0);
    });

    it('uploads the reference workbook as shipped once its registry code is the uploader’s', async () => {
      const shipped = readFileSync(fixturePath('batch', 'sesar2_template_v8_reconstructed_filled.xlsx'));
      const uploader = await createUserWithToken(app);
      await app.get(AccountsService).createRegistryCode('IEFAK', { email: uploader.email });
      const job = await register(uploader, shipped);
      expect([job.status, job.error_message]).toEqual(['completed', null]);
      expect(job.result.sample_count).toBe(2);
      const mine = await http().get('/api/samples/?scope=personal&page_size=10').set(uploader.auth).expect(200);
      const byName = new Map<string, Record<string, unknown>>(
        (mine.body.data as Record<string, unknown>[]).map((sample) => [sample.name as string, sample]),
      );
      const parent = byName.get('Parent core A') as Record<string, unknown>;
      expect(parent).toMatchObject({ igsn: `${DOI_PREFIX}/IEFAK0001`, object_type: 'Core', country: 'US' });
      expect(parent.other_names).toEqual(['StraboSpot 1775']);
      expect(byName.get('Slide A-1')).toMatchObject({
        object_type: 'Thin section',
        parent_sample: `${DOI_PREFIX}/IEFAK0001`,
        other_names: ['StraboSpot 1776', 'lab#22'],
        sample_description: 'A <&> "b" (escaping test)',
        sampling_date_precision: 'day',
      });
    });
  });

  it('reads rows beyond the sheet’s declared <dimension>', async () => {
    const tag = tagged();
    const rows: (string | number)[][] = [['Registry Code', 'Object Type', 'Sample Name', 'Latitude', 'Longitude']];
    for (let i = 1; i <= 12; i++) rows.push([owner.code, 'Core', `${tag}-${i}`, 40 + i / 100, -70]);
    const job = await register(owner, workbookWithDimension(rows, 'A1:E3'));
    expect(job).toMatchObject({ status: 'completed', processed_count: 12, total_count: 12 });
    expect(job.result.sample_count).toBe(12);
    expect((await samplesNamed(owner, tag)).size).toBe(12);
  });

  it('answers 409 naming the earlier batch to the same workbook from the same uploader, unless allow_duplicate=true', async () => {
    const tag = tagged();
    const file = buildWorkbook({
      metadata: { registry_code: owner.code },
      headers: ['Object Type', 'Sample Name', 'Latitude (WGS84)', 'Longitude (WGS84)'],
      rows: [['Core', `${tag}-1`, 41.5, -72.8]],
    });
    const first = await register(owner, file);
    expect(first.status).toBe('completed');
    const batchId = first.result.batch_id;
    const before = (await http().get('/api/batches/').set(owner.auth).expect(200)).body.count;

    const again = await upload(owner, file, {}, 'renamed.xlsx').expect(409);
    expect(again.body.message).toMatch(
      new RegExp(
        `^This workbook was already uploaded as batch ${batchId} \\(batch\\.xlsx, .*\\); send allow_duplicate=true`,
      ),
    );
    expect(again.body.errors).toEqual({ file: [`is the same workbook as batch ${batchId}`] });
    await upload(owner, file, { allow_duplicate: 'maybe' }).expect(400);
    expect((await http().get('/api/batches/').set(owner.auth).expect(200)).body.count).toBe(before);

    // Another uploader may send the same bytes (the batch is theirs); the owner may, when they say so.
    const colleague = await createUserWithToken(app);
    await upload(colleague, file).expect(202);
    const second = await register(owner, file, { allow_duplicate: 'true' });
    expect(second.status).toBe('completed');
    expect(second.result.batch_id).not.toBe(batchId);
    const found = await http().get(`/api/samples/?q=${tag}`).set(owner.auth).expect(200);
    expect(found.body.count).toBe(2);
  });

  it('does not count a failed batch as the earlier upload', async () => {
    const tag = tagged();
    const file = buildWorkbook({
      metadata: { registry_code: owner.code },
      headers: ['Object Type', 'Sample Name'],
      rows: [['Core', `${tag}-1`]],
    });
    // Without coordinates the batch fails unless saved as drafts: the same bytes again are welcome.
    expect((await register(owner, file)).status).toBe('failed');
    expect((await register(owner, file, { save_as_draft: 'true' })).status).toBe('completed');
    await upload(owner, file, { save_as_draft: 'true' }).expect(409);
  });
});
