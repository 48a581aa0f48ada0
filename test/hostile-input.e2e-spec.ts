import { INestApplication } from '@nestjs/common';
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { runCli } from '../src/cli/commands';
import { MAX_LIST_VALUES } from '../src/modules/samples/sample-search';
import { TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { waitForJob } from './support/jobs';
import {
  LEGACY_ENDPOINTS,
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
} from './support/legacy-xml-client';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook } from './support/workbooks';
import { zip } from './support/zip';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

const HEALTH_BOUND_MS = 200;

/** A workbook whose xl/workbook.xml repeats `<sheet` `repeats` times (issue 21 §1's stalling file). */
function sheetFlood(repeats: number): Buffer {
  const workbook =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets>' +
    '<sheet'.repeat(repeats) +
    '</sheets></workbook>';
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
    { name: 'xl/workbook.xml', data: Buffer.from(workbook) },
  ]);
}

/** A minimal workbook whose one sheet's name is `name` (raw XML attribute text). */
function workbookWithSheetName(name: string): Buffer {
  const workbook =
    '<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>' +
    `<sheet name="${name}" sheetId="1" r:id="rId1"/></sheets></workbook>`;
  const rels =
    '<Relationships><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>';
  return zip([
    { name: 'xl/workbook.xml', data: Buffer.from(workbook) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(rels) },
    { name: 'xl/worksheets/sheet1.xml', data: Buffer.from('<worksheet><sheetData/></worksheet>') },
  ]);
}

/**
 * Issue 21 (§1, §2, §5, §6): what any account — or anyone — sends cannot freeze the API, reach
 * PostgreSQL as a 500, choose a search's cost, or get past a check by its shape. Each case ran
 * against the code before the fix and failed there.
 */
describe('hostile input (issue 21)', () => {
  let app: INestApplication;
  let db: DataSource;
  let owner: Registrant;
  let stranger: TestUser;
  let baseUrl: string;
  const api = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    owner = await createRegistrant(app);
    stranger = await createUserWithToken(app, { uploadPermission: false });
    // A real port: the upload tests need a socket whose writes the server may refuse to read.
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app.close();
  });

  const upload = (who: TestUser, file: Buffer, fields: Record<string, string> = {}) => {
    const req = api().post('/api/batches/upload/').set(who.auth).attach('file', file, 'batch.xlsx');
    for (const [key, value] of Object.entries(fields)) req.field(key, value);
    return req;
  };

  const sample = (extra: Record<string, unknown> = {}) => ({
    registry_code: owner.code,
    name: `hostile-${randomUUID().slice(0, 8)}`,
    object_type: 'Core',
    latitude: 41.5,
    longitude: -72.8,
    ...extra,
  });

  describe('§1 nothing an uploader sends stalls the event loop', () => {
    /** Latency of GET /api/health/ while `work` runs: every answer, until it settles. */
    async function healthDuring<T>(work: Promise<T>): Promise<{ result: T; latencies: number[] }> {
      let done = false;
      const latencies: number[] = [];
      const probe = (async () => {
        while (!done) {
          const started = performance.now();
          await api().get('/api/health/').expect(200);
          latencies.push(performance.now() - started);
        }
      })();
      try {
        return { result: await work, latencies };
      } finally {
        done = true;
        await probe;
      }
    }

    it.each([
      ['30,000', 30_000],
      ['300,000 (10×)', 300_000],
    ])(
      'answers a workbook.xml with %s `<sheet` repeats with a 4xx while /api/health/ answers in < 200 ms',
      async (_label, repeats) => {
        // Warm-up with a small file of the same shape: first-request costs (module loading, JIT, the
        // first query of each kind) are not the file's, and the bound is about what the file costs.
        await healthDuring(upload(owner, sheetFlood(10)).then((res) => res));
        const { result, latencies } = await healthDuring(upload(owner, sheetFlood(repeats)).then((res) => res));
        expect(result.status).toBeGreaterThanOrEqual(400);
        expect(result.status).toBeLessThan(500);
        // The probe ran through the whole upload (it starts before the request is sent).
        expect(latencies.length).toBeGreaterThan(0);
        expect(Math.max(...latencies)).toBeLessThan(HEALTH_BOUND_MS);
        if (repeats > 100_000) {
          expect(result.body.errors.file[0]).toContain('xl/workbook.xml is larger than 256 KiB');
        }
      },
    );

    it('refuses a character reference outside Unicode (&#x110000;) in workbook.xml with 400', async () => {
      const res = await upload(owner, workbookWithSheetName('Samples&#x110000;')).expect(400);
      expect(res.body.errors.file[0]).toContain('&#x110000;');
    });

    it('refuses an upload without permission before reading its body', async () => {
      const total = 30 * 1024 * 1024;
      const boundary = `----hostile${randomUUID()}`;
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.xlsx"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      const chunk = Buffer.alloc(256 * 1024, 0x41);
      const outcome = await new Promise<{ status: number; sentBeforeAnswer: number }>((resolve, reject) => {
        let sent = 0;
        let answered: { status: number; sentBeforeAnswer: number } | undefined;
        const req = http.request(`${baseUrl}/api/batches/upload/`, {
          method: 'POST',
          headers: {
            ...stranger.auth,
            'Content-Type': `multipart/form-data; boundary=${boundary}`,
            'Content-Length': String(head.length + total),
          },
        });
        req.on('response', (res) => {
          answered = { status: res.statusCode ?? 0, sentBeforeAnswer: sent };
          res.resume();
          res.on('end', () => resolve(answered as { status: number; sentBeforeAnswer: number }));
          req.destroy();
        });
        req.on('error', (error) => (answered ? resolve(answered) : reject(error)));
        req.write(head);
        const pump = () => {
          // Stop sending as soon as the server has answered: the rest would never be read.
          while (!answered && sent < total) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          if (!answered) req.end();
        };
        pump();
      });
      expect(outcome.status).toBe(403);
      expect(outcome.sentBeforeAnswer).toBeLessThan(total);
    });
  });

  describe('§2 every bad value is a 400, never a 500, never silently stored', () => {
    it.each([
      ['collectors: [99999999999]', { collectors: [99999999999] }, 'collectors.0.id'],
      ['collectors: [1e300]', { collectors: [1e300] }, 'collectors.0.id'],
      ['collectors: [{id: 3e10}]', { collectors: [{ id: 3e10 }] }, 'collectors.0.id'],
    ])('refuses an id beyond int4 (%s) with 400', async (_label, extra, field) => {
      const res = await api().post('/api/samples/').set(owner.auth).send(sample(extra)).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
    });

    it("refuses an archive's parent_institution beyond int4 with 400", async () => {
      const res = await api()
        .post('/api/archives/')
        .set(owner.auth)
        .send({ label: `Archive ${randomUUID()}`, parent_institution: 3e10 })
        .expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['parent_institution']);
    });

    it('counts lengths in code points like PostgreSQL: "A\\uFE0F" × 200 is 400 characters', async () => {
      const res = await api()
        .post('/api/samples/')
        .set(owner.auth)
        .send(sample({ name: 'A\uFE0F'.repeat(200) }))
        .expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['name']);
      // 255 code points fit the column and are stored.
      await api()
        .post('/api/samples/')
        .set(owner.auth)
        .send(sample({ name: `${'A\uFE0F'.repeat(127)}${randomUUID().slice(0, 1)}` }))
        .expect(201);
    });

    it.each(['2024-W05', '2024-123', '20240601', '2024-06-01T12', '-2024-06-01', '2024-02-30', '+002024-06-01'])(
      'refuses the date %s on POST and PATCH with 400 naming the field',
      async (date) => {
        const created = await api()
          .post('/api/samples/')
          .set(owner.auth)
          .send(sample({ sampling_start_date: date }));
        expect(created.status).toBe(400);
        expect(Object.keys(created.body.errors)).toEqual(['sampling_start_date']);
        const igsn = (await api().post('/api/samples/').set(owner.auth).send(sample()).expect(201)).body.data.igsn;
        const patched = await api().patch(`/api/samples/${igsn}/`).set(owner.auth).send({ publish_date: date });
        expect(patched.status).toBe(400);
        expect(Object.keys(patched.body.errors)).toEqual(['publish_date']);
      },
    );

    it('accepts the documented date forms', async () => {
      for (const date of ['2024', '2024-06', '2024-06-01', '2024-06-01T08:30', '2024-06-01T08:30:00.123+02:00']) {
        const res = await api()
          .post('/api/samples/')
          .set(owner.auth)
          .send(sample({ sampling_start_date: date }));
        expect({ date, status: res.status }).toEqual({ date, status: 201 });
      }
    });

    it('refuses a week-form date in legacy XML, naming the field', async () => {
      const name = `legacy-${randomUUID().slice(0, 8)}`;
      const res = await postLegacyXml(
        app,
        LEGACY_ENDPOINTS.upload,
        legacySamplesDocument(
          minimalLegacySample(owner.code, name, '<collection_start_date>2024-W05</collection_start_date>'),
        ),
        { headers: owner.auth },
      );
      expect(res.status).toBeLessThan(500);
      expect(res.text).toContain('sampling_start_date');
      expect(await db.query('SELECT id FROM sample WHERE name = $1', [name])).toEqual([]);
    });

    it('refuses ids that are not UUIDs (36 dashes) for jobs and developer tokens with 404', async () => {
      const dashes = '-'.repeat(36);
      await api().get(`/api/jobs/${dashes}/`).set(owner.auth).expect(404);
      await api().delete(`/api/auth/developer-tokens/${dashes}/`).set(owner.auth).expect(404);
    });

    it.each(['registry_code', 'object_type'])(
      'refuses a NUL byte in the multipart field %s with 400',
      async (field) => {
        const file = buildWorkbook({ headers: ['Sample Name'], rows: [['x']] });
        const res = await upload(owner, file, { [field]: `IE\u0000X` }).expect(400);
        expect(res.body.errors).toEqual({ [field]: ['must not contain a NUL character'] });
      },
    );

    describe('in a batch row (worker)', () => {
      let worker: WorkerProcess;

      beforeAll(async () => {
        worker = await startWorkerProcess();
      }, 180_000);

      afterAll(async () => {
        await worker?.stop();
      });

      it('fails a row whose date is in week form instead of storing NULL', async () => {
        const name = `week-${randomUUID().slice(0, 8)}`;
        const file = buildWorkbook({
          metadata: { registry_code: owner.code },
          headers: ['Sample Name', 'Object Type', 'Latitude (WGS84)', 'Longitude (WGS84)', 'sampling_start_date'],
          rows: [[name, 'Core', 41.5, -72.8, '2024-W05']],
        });
        const queued = (await upload(owner, file).expect(202)).body.data;
        const job = await waitForJob<{
          status: string;
          result: { errors: { row: number; message: string }[] } | null;
        }>(app, owner, queued.job_id, { timeoutMs: 120_000 });
        expect(job.status).toBe('failed');
        expect(job.result?.errors[0]).toMatchObject({ row: 2 });
        expect(job.result?.errors[0].message).toMatch(/^sampling_start_date: /);
        expect(await db.query('SELECT id FROM sample WHERE name = $1', [name])).toEqual([]);
      }, 150_000);
    });
  });

  describe('§5 list-valued parameters: deduplicated and capped', () => {
    const distinctCodes = async (count: number): Promise<string[]> =>
      (
        await db.query<{ code: string }[]>(
          'SELECT iso3166code AS code FROM country WHERE active ORDER BY iso3166code LIMIT $1',
          [count],
        )
      ).map((row) => row.code);

    it(`refuses more than ${MAX_LIST_VALUES} distinct countries with 400 (search and export)`, async () => {
      const codes = await distinctCodes(MAX_LIST_VALUES + 1);
      expect(codes).toHaveLength(MAX_LIST_VALUES + 1);
      const res = await api()
        .get('/api/samples/')
        .query({ country: codes.join(',') })
        .expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['country']);
      const exported = await api()
        .post('/api/samples/export/')
        .set(owner.auth)
        .send({ format: 'csv', country: codes.join(',') })
        .expect(400);
      expect(Object.keys(exported.body.errors)).toEqual(['country']);
    });

    it('takes 1,000 repeats of one country as one value', async () => {
      await api()
        .get('/api/samples/')
        .query({ country: Array(1000).fill('us').join(',') })
        .expect(200);
    });

    it(`refuses more than ${MAX_LIST_VALUES} distinct object types or registry codes with 400`, async () => {
      const labels = Array.from({ length: MAX_LIST_VALUES + 1 }, (_, i) => `Type ${i}`);
      const res = await api()
        .get('/api/samples/')
        .query({ object_type: labels.join(',') })
        .expect(400);
      expect(res.body.errors.object_type[0]).toContain(`at most ${MAX_LIST_VALUES}`);
      const codes = Array.from({ length: MAX_LIST_VALUES + 1 }, (_, i) => `IE${i.toString(36).padStart(3, '0')}`);
      const byCode = await api()
        .get('/api/samples/')
        .query({ registry_code: codes.join(',') })
        .expect(400);
      expect(byCode.body.errors.registry_code[0]).toContain(`at most ${MAX_LIST_VALUES}`);
    });

    it('still resolves a short list of object types by label and by path, any case', async () => {
      await api().get('/api/samples/').query({ object_type: 'core,CORE, Core' }).expect(200);
      await api().get('/api/samples/').query({ object_type: 'Core,No Such Type' }).expect(400);
    });
  });

  describe('§6 small items', () => {
    it('refuses an access token whose exp is not a number', async () => {
      const claims = jwt.decode(owner.accessToken) as Record<string, unknown>;
      // jsonwebtoken will not sign such a token: it is put together by hand, validly signed.
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...claims, exp: '99999999999' })}`;
      const signature = createHmac('sha256', testConfig().auth.jwtSecret).update(unsigned).digest('base64url');
      const forged = `${unsigned}.${signature}`;
      // The same token with a numeric exp is accepted: only the type of exp differs.
      const fair = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...claims, exp: 99999999999 })}`;
      const fairSignature = createHmac('sha256', testConfig().auth.jwtSecret).update(fair).digest('base64url');
      await api().get('/api/users/me/').set('Authorization', `Bearer ${fair}.${fairSignature}`).expect(200);
      await api().get('/api/users/me/').set('Authorization', `Bearer ${forged}`).expect(401);
    });

    it.each(['constructor', '__proto__', 'prototype'])(
      'refuses a body key named %s like any unknown field',
      async (key) => {
        const body = JSON.stringify(sample()).replace(/^\{/, `{"${key}": {"x": 1},`);
        const res = await api()
          .post('/api/samples/')
          .set(owner.auth)
          .set('Content-Type', 'application/json')
          .send(body)
          .expect(400);
        expect(res.body.errors).toEqual({ [key]: ['This field is not allowed.'] });
      },
    );

    it('user:create without --name keeps the label empty, and takes the password from stdin or the environment', async () => {
      const run = async (args: string[], io: { stdin?: string; env?: Record<string, string> }) => {
        const out: string[] = [];
        const err: string[] = [];
        const exit = await runCli(args, testConfig(), {
          stdout: (line) => out.push(line),
          stderr: (line) => err.push(line),
          readStdin: async () => io.stdin ?? '',
          env: io.env ?? {},
        });
        return { exit, out: out.map((line) => JSON.parse(line) as Record<string, unknown>), err };
      };
      const viaStdin = await run(['user:create', '--email', `cli-${randomUUID()}@example.org`, '--password-stdin'], {
        stdin: 'a-long-enough-password\n',
      });
      expect(viaStdin.exit).toBe(0);
      expect(viaStdin.out[0].name).toBeNull();
      const email = `cli-${randomUUID()}@example.org`;
      const viaEnv = await run(['user:create', '--email', email, '--name', 'Env Person'], {
        env: { REGISTRY_USER_PASSWORD: 'another-long-password' },
      });
      expect(viaEnv.exit).toBe(0);
      expect(viaEnv.out[0].name).toBe('Env Person');
      await api().post('/api/auth/login/').send({ email, password: 'another-long-password' }).expect(200);
      const without = await run(['user:create', '--email', `cli-${randomUUID()}@example.org`], {});
      expect(without.exit).toBe(2);
    });

    it('/api/health/ready says up or down only to anonymous callers', async () => {
      const down = await createTestApp({ config: testConfig({ REDIS_URL: 'redis://127.0.0.1:1/0' }) });
      try {
        const res = await request(down.getHttpServer()).get('/api/health/ready/').expect(503);
        expect(res.body.errors).toEqual({ redis: ['down'] });
      } finally {
        await down.close();
      }
    });

    it('lists session pairs beside developer tokens and revokes them', async () => {
      const user = await createUserWithToken(app);
      const listed = await api().get('/api/auth/sessions/').set(user.auth).expect(200);
      const current = (listed.body.data as { id: string; kind: string; current: boolean }[]).find((s) => s.current);
      expect(current).toMatchObject({ kind: 'session' });
      const other = await api()
        .post('/api/auth/login/')
        .send({ email: user.email, password: user.password })
        .expect(200);
      const otherAuth = { Authorization: `Bearer ${other.body.data.access}` };
      const mine = (await api().get('/api/auth/sessions/').set(otherAuth).expect(200)).body.data as {
        id: string;
        current: boolean;
      }[];
      expect(mine).toHaveLength(2);
      await api().delete(`/api/auth/sessions/${current?.id}/`).set(otherAuth).expect(204);
      await api().get('/api/users/me/').set(user.auth).expect(401);
    });
  });
});
