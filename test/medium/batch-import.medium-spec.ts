import { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AuthenticatedUser } from '../../src/core/auth/authenticated-user';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { BackgroundJobsService } from '../../src/modules/background-jobs/background-jobs.service';
import { BatchRegistrationService } from '../../src/modules/batches/batch-registration.service';
import { BatchesService } from '../../src/modules/batches/batches.service';
import { createRegistrant } from '../support/auth';
import { createMediumContext } from '../support/medium';
import { testConfig } from '../support/test-environment';
import { buildWorkbook } from '../support/workbooks';

const HEADERS = [
  'Object Type',
  'Sample Name',
  'External Sample ID',
  'Latitude (WGS84)',
  'Longitude (WGS84)',
  'Collector',
  'Collector Detail',
];

/**
 * A large batch checks its rows on worker threads (docs/decisions/0010); a small one inline. The same
 * file must give the same job either way: the same row errors in the same order, nothing stored when
 * a row fails, and every sample stored in file order when none does.
 */
describe('batch import, rows checked inline or on threads', () => {
  let inline: INestApplicationContext;
  let threaded: INestApplicationContext;
  let user: AuthenticatedUser;
  let code: string;

  beforeAll(async () => {
    inline = await createMediumContext({ config: testConfig({ BATCH_VALIDATION_THREADS: '0' }) });
    threaded = await createMediumContext({
      config: testConfig({ BATCH_VALIDATION_THREADS: '2', BATCH_THREADS_FROM_ROWS: '1' }),
    });
    const registrant = await createRegistrant(inline);
    code = registrant.code;
    user = (await inline.get(AccountsService).actingUser(registrant.userId)) as AuthenticatedUser;
  }, 60_000);

  afterAll(async () => {
    await inline?.close();
    await threaded?.close();
  });

  async function runBatch(app: INestApplicationContext, rows: (string | number | null)[][]) {
    const file = buildWorkbook({ metadata: { registry_code: code }, headers: HEADERS, rows });
    const queued = await app
      .get(BatchesService)
      .upload({ originalname: 'rows.xlsx', buffer: file, size: file.length }, { allow_duplicate: 'true' }, user);
    await app.get(BatchRegistrationService).run(queued.job_id);
    const job = await app.get(BackgroundJobsService).find(queued.job_id);
    return { status: job?.status, errorMessage: job?.errorMessage, result: job?.result };
  }

  // A name no other test gives a person: a name shared by two people is ambiguous, and every row
  // naming it would be refused (the medium suites share one database).
  const collector = `Batch Import Collector ${randomUUID().slice(0, 8)}`;
  const good = (tag: string, i: number) => [
    'Core',
    `${tag}-${i}`,
    `${tag}-ext-${i}`,
    10 + i / 1000,
    -20,
    collector,
    null,
  ];

  it('refuses the same rows with the same errors, in row order, and stores nothing', async () => {
    const tag = randomUUID().slice(0, 8);
    const rows = Array.from({ length: 700 }, (_, i) => good(tag, i));
    rows[3] = ['Core', `${tag}-3`, null, 'north', -20, null, null]; // not a latitude
    rows[260] = ['Core', `${tag}-1`, null, 10, -20, null, null]; // the name of an earlier row
    rows[261] = ['Core', `${tag}-x`, `${tag}-ext-5`, 10, -20, null, null]; // another row's external id
    rows[520] = ['Core', `${tag}-y`, null, 10, -20, 'A; B', 'one detail']; // details ≠ collectors
    rows[699] = ['No such type', `${tag}-z`, null, 10, 200, null, null];
    const viaThreads = await runBatch(threaded, rows);
    const viaInline = await runBatch(inline, rows);
    expect(viaThreads.status).toBe('failed');
    expect(viaThreads).toEqual(viaInline);
    const errors = (viaThreads.result as { errors: { row: number }[] }).errors;
    expect(errors.map((error) => error.row)).toEqual([...errors.map((error) => error.row)].sort((a, b) => a - b));
    expect(errors.length).toBeGreaterThanOrEqual(5);
    expect(await countSamples(tag)).toBe(0);
  }, 120_000);

  it('stores every row, in file order, on threads as inline', async () => {
    const results = [];
    for (const app of [threaded, inline]) {
      const tag = randomUUID().slice(0, 8);
      const outcome = await runBatch(
        app,
        Array.from({ length: 600 }, (_, i) => good(tag, i)),
      );
      expect(outcome.status).toBe('completed');
      const names = await inline
        .get(DataSource)
        .query<{ name: string }[]>('SELECT name FROM sample WHERE name LIKE $1 ORDER BY id', [`${tag}-%`]);
      results.push({
        count: (outcome.result as { sample_count: number }).sample_count,
        order: names.map((row) => row.name.slice(tag.length + 1)),
      });
    }
    expect(results[0].count).toBe(600);
    expect(results[0].order).toEqual(Array.from({ length: 600 }, (_, i) => String(i)));
    expect(results[0]).toEqual(results[1]);
  }, 120_000);

  it("checks the rows' external ids against the stored samples in one statement, not one a row", async () => {
    const tag = randomUUID().slice(0, 8);
    expect((await runBatch(inline, [good(tag, 0)])).status).toBe('completed'); // stores `${tag}-ext-0`
    const rows = Array.from({ length: 600 }, (_, i) => good(`${tag}-again`, i));
    rows[400] = good(tag, 0); // the stored sample's external id (and name: claimed by no other row)
    rows[400][1] = `${tag}-other-name`;
    const { outcome, noted } = await noting(/external_sample_id/, () => runBatch(inline, rows));
    const statements = noted.map((statement) => statement.text);
    expect(outcome.status).toBe('failed');
    expect((outcome.result as { errors: { row: number; message: string }[] }).errors).toEqual([
      {
        row: 402,
        message: expect.stringMatching(/^external_sample_id: already identifies your sample 10\.\d+\/IE/),
      },
    ]);
    // The 600 new rows: one look-up of their external ids (the insert's own statement names the column too).
    expect(statements.filter((text) => /external_sample_id = ANY/.test(text))).toHaveLength(1);
    expect(statements.filter((text) => /external_sample_id = \$\d/.test(text))).toEqual([]);
  }, 120_000);

  it('fails a batch whose cell budget is passed while its first chunks are being inserted, and stores none of them', async () => {
    // Without an IGSN column the rows are read as they are registered (BatchWorkbook.open): the
    // budget is met after two chunks of 1,000 rows went to PostgreSQL, in the batch's transaction.
    const budgeted = await createMediumContext({ config: testConfig({ BATCH_MAX_CELLS: '13000' }) });
    const tag = randomUUID().slice(0, 8);
    let inserts: unknown[];
    try {
      const { outcome, noted } = await noting(/^INSERT INTO sample \(/, () =>
        runBatch(
          budgeted,
          Array.from({ length: 2600 }, (_, i) => good(tag, i)), // 6 filled-in cells a row
        ),
      );
      expect(outcome).toMatchObject({
        status: 'failed',
        errorMessage: 'The Samples sheet has more than 13000 filled-in cells; split it into smaller batches.',
      });
      inserts = noted;
    } finally {
      await budgeted.close();
    }
    expect(inserts.length).toBeGreaterThanOrEqual(1);
    expect(await countSamples(tag)).toBe(0);
  }, 120_000);

  it('stores the columns every row shares once for the chunk, and each row as it was sent', async () => {
    const tag = randomUUID().slice(0, 8);
    const { outcome, noted } = await noting(/^INSERT INTO sample \(/, () =>
      runBatch(inline, [good(tag, 0), good(tag, 1), ['Core', `${tag}-2`, null, 10, -20, null, null]]),
    );
    expect(outcome.status).toBe('completed');
    const [rows, constants] = noted[0].values.map((value) => JSON.parse(String(value)) as Record<string, unknown>);
    // Shared: the batch, the owner, the code, the object type, the longitude. Each row's own: its
    // name, IGSN, external id and latitude, and the time it was prepared at (a Date of its own).
    expect(Object.keys(constants)).toEqual(
      expect.arrayContaining(['batch_id', 'user_owner_id', 'registry_code', 'object_type_id', 'longitude']),
    );
    expect((rows as unknown as Record<string, unknown>[]).map((row) => Object.keys(row).sort())).toEqual([
      ['created_at', 'external_sample_id', 'igsn', 'latitude', 'name', 'updated_at'],
      ['created_at', 'external_sample_id', 'igsn', 'latitude', 'name', 'updated_at'],
      ['created_at', 'igsn', 'latitude', 'name', 'updated_at'],
    ]);
    const stored = await inline.get(DataSource).query<Record<string, unknown>[]>(
      `SELECT name, external_sample_id, latitude::float8 AS latitude, longitude::float8 AS longitude, batch_id,
              object_type_id, material_types, is_deactivated, created_at = updated_at AS same_time
         FROM sample WHERE name LIKE $1 ORDER BY id`,
      [`${tag}-%`],
    );
    const batchId = (outcome.result as { batch_id: number }).batch_id;
    expect(stored).toEqual(
      [0, 1, 2].map((i) => ({
        name: `${tag}-${i}`,
        external_sample_id: i < 2 ? `${tag}-ext-${i}` : null,
        latitude: i < 2 ? 10 + i / 1000 : 10,
        longitude: -20,
        batch_id: batchId,
        object_type_id: stored[0].object_type_id,
        material_types: [],
        is_deactivated: false,
        same_time: true,
      })),
    );
    expect(stored[0].object_type_id).toEqual(expect.any(Number));
  }, 120_000);

  /** Runs `run`, noting the statements (text and values) sent meanwhile whose text matches `pattern`. */
  async function noting<T>(pattern: RegExp, run: () => Promise<T>) {
    const noted: { text: string; values: unknown[] }[] = [];
    const original = Client.prototype.query;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string })?.text;
      if (text && pattern.test(text)) noted.push({ text, values: args[1] as unknown[] });
      return (original as (...values: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query;
    try {
      return { outcome: await run(), noted };
    } finally {
      Client.prototype.query = original;
    }
  }

  async function countSamples(tag: string): Promise<number> {
    const [row] = await inline
      .get(DataSource)
      .query<{ n: number }[]>('SELECT count(*)::int AS n FROM sample WHERE name LIKE $1', [`${tag}-%`]);
    return row.n;
  }
});
