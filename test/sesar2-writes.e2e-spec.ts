import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createRegistrant, createUserWithToken } from './support/auth';
import { jobFinished, waitForJob } from './support/jobs';
import { createTestApp } from './support/test-app';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook } from './support/workbooks';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Who = { auth: { Authorization: string } };

/**
 * Issue 20 §1: writes in the shapes SESAR2 clients send — numbers as decimal strings, SESAR2's
 * field names, external_sample_id as the client's duplicate guard, related resources as objects.
 */
describe('SESAR2 clients: writes', () => {
  let app: INestApplication;
  let worker: WorkerProcess | undefined;
  let owner: Registrant;
  let other: Registrant;
  let staff: Awaited<ReturnType<typeof createUserWithToken>>;
  const tag = randomUUID().slice(0, 8);
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createRegistrant(app);
    other = await createRegistrant(app);
    staff = await createUserWithToken(app, { isStaff: true });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await app?.close();
  });

  const register = (who: Registrant, body: Record<string, unknown>) =>
    http()
      .post('/api/samples/')
      .set(who.auth)
      .send({ sesar_code: who.code, object_type: 'Individual sample', ...body });
  const mineCount = async (who: Who, query: Record<string, string>) =>
    (await http().get('/api/samples/').query(query).set(who.auth).expect(200)).body.count as number;

  describe('numbers as decimal strings', () => {
    it('registers with string coordinates and answers JSON numbers', async () => {
      const res = await register(owner, {
        name: `${tag}-strings`,
        latitude: '38.957178',
        longitude: ' -120.0871 ',
        elevation: '1.25e3',
        depth_min: '0',
        depth_max: 12,
      }).expect(201);
      expect(res.body.data).toMatchObject({
        latitude: 38.957178,
        longitude: -120.0871,
        elevation: 1250,
        depth_min: 0,
        depth_max: 12,
      });
    });

    it('refuses anything else with a 400 naming the field, and stores nothing', async () => {
      for (const [field, value] of [
        ['latitude', 'north'],
        ['latitude', ''],
        ['longitude', 'NaN'],
        ['elevation', '12 m'],
        ['latitude', '91'],
        ['numeric_age_min', true],
        ['depth_max', { value: 3 }],
      ] as const) {
        const res = await register(owner, { name: `${tag}-bad`, latitude: 1, longitude: 2, [field]: value });
        expect({ field, value, status: res.status }).toEqual({ field, value, status: 400 });
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
      expect(await mineCount(owner, { name: `${tag}-bad` })).toBe(0);
    });

    it('reads decimal strings in PATCH too', async () => {
      const created = (await register(owner, { name: `${tag}-patch-num`, latitude: 1, longitude: 2 }).expect(201)).body
        .data;
      const res = await http()
        .patch(`/api/samples/${created.igsn}/`)
        .set(owner.auth)
        .send({ latitude: '-45.5', numeric_age_max: '2.6' })
        .expect(200);
      expect(res.body.data).toMatchObject({ latitude: -45.5, numeric_age_max: 2.6 });
    });
  });

  describe("SESAR2's field names", () => {
    it('takes latitude_end, longitude_end and material_name_verbatim beside ours, in POST and PATCH', async () => {
      const res = await register(owner, {
        name: `${tag}-aliases`,
        latitude: '10',
        longitude: '20',
        latitude_end: '10.5',
        longitude_end: 20.5,
        material_name_verbatim: 'Pillow basalt',
      }).expect(201);
      const sample = res.body.data;
      expect(sample).toMatchObject({ end_latitude: 10.5, end_longitude: 20.5, field_name: 'Pillow basalt' });
      expect(sample).not.toHaveProperty('latitude_end');
      const patched = await http()
        .patch(`/api/samples/${sample.igsn}/`)
        .set(owner.auth)
        .send({ latitude_end: '11', end_longitude: 21, longitude_end: '21' })
        .expect(200);
      expect(patched.body.data).toMatchObject({ end_latitude: 11, end_longitude: 21 });
    });

    it('refuses an alias and our name with different values (400 naming the alias, nothing changed)', async () => {
      const res = await register(owner, {
        name: `${tag}-clash`,
        latitude: 1,
        longitude: 2,
        end_latitude: 3,
        latitude_end: 4,
      }).expect(400);
      expect(res.body.errors).toEqual({ latitude_end: [expect.stringContaining('end_latitude')] });
      expect(await mineCount(owner, { name: `${tag}-clash` })).toBe(0);
      const created = (await register(owner, { name: `${tag}-clash2`, latitude: 1, longitude: 2 }).expect(201)).body
        .data;
      const patch = await http()
        .patch(`/api/samples/${created.igsn}/`)
        .set(owner.auth)
        .send({ field_name: 'a', material_name_verbatim: 'b' })
        .expect(400);
      expect(Object.keys(patch.body.errors)).toEqual(['material_name_verbatim']);
      const after = (await http().get(`/api/samples/${created.igsn}/`).set(owner.auth).expect(200)).body.data;
      expect(after.field_name).toBeNull();
    });
  });

  describe('external_sample_id', () => {
    let first: { igsn: string; id: number };

    it('is stored and returned in the detail and the list, and found by ?external_sample_id=', async () => {
      const res = await register(owner, {
        name: `${tag}-ext`,
        latitude: 1,
        longitude: 2,
        external_sample_id: ` ${tag}-FIELD-1 `,
      }).expect(201);
      first = res.body.data;
      expect(res.body.data.external_sample_id).toBe(`${tag}-FIELD-1`);
      const list = await http()
        .get('/api/samples/')
        .query({ external_sample_id: `${tag}-FIELD-1` })
        .set(owner.auth)
        .expect(200);
      expect(list.body.count).toBe(1);
      expect(list.body.data[0]).toMatchObject({ igsn: first.igsn, external_sample_id: `${tag}-FIELD-1` });
      const xml = (await http().get(`/api/samples/${first.igsn}/?format=datacite`).expect(200)).text;
      expect(xml).toContain(
        `<alternateIdentifier alternateIdentifierType="Local">${tag}-FIELD-1</alternateIdentifier>`,
      );
      const publicList = await http()
        .get('/api/samples/')
        .query({ external_sample_id: `${tag}-FIELD-1` })
        .expect(200);
      expect(publicList.body.data.map((s: { igsn: string }) => s.igsn)).toEqual([first.igsn]);
      await http()
        .get('/api/samples/')
        .query({ external_sample_id: 'x'.repeat(256) })
        .set(owner.auth)
        .expect(400);
    });

    it('a second registration by the same owner is a 409 naming the existing IGSN; another owner may reuse it', async () => {
      const res = await register(owner, {
        name: `${tag}-ext-twin`,
        latitude: 1,
        longitude: 2,
        external_sample_id: `${tag}-FIELD-1`,
      }).expect(409);
      expect(res.body.message).toContain(first.igsn);
      expect(res.body.errors.external_sample_id[0]).toContain(first.igsn);
      expect(await mineCount(owner, { name: `${tag}-ext-twin` })).toBe(0);
      await register(other, {
        name: `${tag}-ext-other`,
        latitude: 1,
        longitude: 2,
        external_sample_id: `${tag}-FIELD-1`,
      }).expect(201);
    });

    it('holds under concurrency: one of many simultaneous registrations wins, the others get 409 naming it', async () => {
      const externalId = `${tag}-RACE`;
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          register(owner, { name: `${tag}-race-${i}`, latitude: 1, longitude: 2, external_sample_id: externalId }),
        ),
      );
      const statuses = results.map((res) => res.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
      const winner = results.find((res) => res.status === 201)?.body.data.igsn as string;
      for (const res of results.filter((r) => r.status === 409)) {
        expect(res.body.errors.external_sample_id[0]).toContain(winner);
      }
      expect(await mineCount(owner, { external_sample_id: externalId })).toBe(1);
    });

    it('PATCH to an id another sample of the owner carries is a 409; to a free one succeeds', async () => {
      const second = (
        await register(owner, { name: `${tag}-ext-2`, latitude: 1, longitude: 2, external_sample_id: `${tag}-F2` })
      ).body.data;
      const res = await http()
        .patch(`/api/samples/${second.igsn}/`)
        .set(owner.auth)
        .send({ external_sample_id: `${tag}-FIELD-1` })
        .expect(409);
      expect(res.body.errors.external_sample_id[0]).toContain(first.igsn);
      await http()
        .patch(`/api/samples/${second.igsn}/`)
        .set(owner.auth)
        .send({ external_sample_id: `${tag}-F3`, name: `${tag}-ext-2` })
        .expect(200);
      // Sending back its own id changes nothing and is no conflict.
      await http()
        .patch(`/api/samples/${second.igsn}/`)
        .set(owner.auth)
        .send({ external_sample_id: `${tag}-F3` })
        .expect(200);
    });

    it('is freed when its sample is deactivated', async () => {
      const retired = (
        await register(owner, { name: `${tag}-retired`, latitude: 1, longitude: 2, external_sample_id: `${tag}-OLD` })
      ).body.data;
      await http()
        .post(`/api/samples/${retired.igsn}/deactivate/`)
        .set(owner.auth)
        .send({ reason: 'duplicate igsn' })
        .expect(200);
      await register(owner, {
        name: `${tag}-renewed`,
        latitude: 1,
        longitude: 2,
        external_sample_id: `${tag}-OLD`,
      }).expect(201);
    });

    it('stays unique per owner through transfers: a sample whose id the recipient uses is skipped', async () => {
      const offered = (
        await http()
          .post('/api/transfers/')
          .set(owner.auth)
          .send({ to_user_email: other.email, igsns: [first.igsn] })
          .expect(201)
      ).body.data;
      const accepted = await http().post(`/api/transfers/${offered.id}/accept/`).set(other.auth).send({}).expect(200);
      expect(accepted.body.data).toMatchObject({ status: 'accepted', moved_count: 0, skipped_count: 1 });
      const still = (await http().get(`/api/samples/${first.igsn}/`).set(owner.auth).expect(200)).body.data;
      expect(still.user_owner).toBe(owner.userId);
    });

    it('is in the field catalogue with the SESAR2 aliases of the other fields', async () => {
      const catalogue = (await http().get('/api/batch-templates/fields/').expect(200)).body.data as {
        key: string;
        label: string;
        aliases: string[];
      }[];
      expect(catalogue.find((field) => field.key === 'external_sample_id')).toMatchObject({
        label: 'External Sample ID',
      });
      expect(catalogue.find((field) => field.key === 'end_latitude')?.aliases).toContain('latitude_end');
      expect(catalogue.find((field) => field.key === 'field_name')?.aliases).toContain('material_name_verbatim');
    });
  });

  describe('related resources as objects', () => {
    let resource: { id: number; [field: string]: unknown };
    let sample: { igsn: string; id: number };

    it('creates one (uri_type inferred), lists, searches, orders and pages them', async () => {
      const res = await http()
        .post('/api/related-resources/')
        .set(owner.auth)
        .send({
          label: `${tag} Smith 2024`,
          related_resource_type: 'Text',
          uri: 'https://doi.org/10.1594/PANGAEA.123456',
          description: 'Geochemistry',
        })
        .expect(201);
      resource = res.body.data;
      expect(resource).toMatchObject({
        label: `${tag} Smith 2024`,
        related_resource_type: 'text',
        uri_type: 'DOI',
        created_by: owner.userId,
        can_edit: true,
      });
      await http()
        .post('/api/related-resources')
        .set(owner.auth)
        .send({ label: `${tag} Data`, related_resource_type: 'dataset', uri: 'https://data.example.org/d/1' })
        .expect(201);
      const page = await http()
        .get('/api/related-resources/')
        .query({ search: tag, ordering: 'label', page_size: 1 })
        .set(owner.auth)
        .expect(200);
      expect(page.body).toMatchObject({ count: 2, total_pages: 2, current_page: 1, page_size: 1 });
      expect(page.body.data[0].label).toBe(`${tag} Data`);
      expect(page.body.next).toContain('page=2');
      const desc = await http()
        .get('/api/related-resources/')
        .query({ search: tag, ordering: '-label' })
        .set(owner.auth)
        .expect(200);
      expect(desc.body.data.map((r: { label: string }) => r.label)).toEqual([`${tag} Smith 2024`, `${tag} Data`]);
      expect(
        (await http().get('/api/related-resources/').query({ search: tag }).set(other.auth).expect(200)).body.count,
      ).toBe(0);
      await http().get('/api/related-resources/').query({ ordering: 'colour' }).set(owner.auth).expect(400);
      await http().get('/api/related-resources/').query({ colour: 'red' }).set(owner.auth).expect(400);
      await http().get('/api/related-resources/').expect(401);
    });

    it('refuses bad bodies with a 400 naming the field', async () => {
      const bad: [Record<string, unknown>, string][] = [
        [{ related_resource_type: 'text', uri: 'https://x.org' }, 'label'],
        [{ label: 'a', related_resource_type: 'poem', uri: 'https://x.org' }, 'related_resource_type'],
        [{ label: 'a', related_resource_type: 'text', uri: 'https://x.org', uri_type: 'carrier pigeon' }, 'uri_type'],
        [{ label: 'a', related_resource_type: 'text', uri: 'not a url' }, 'uri'],
        [{ label: 'a', related_resource_type: 'text', uri: 'https://x.org', uri_type: 'DOI' }, 'uri'],
        [{ label: 'a', related_resource_type: 'text', uri: 'https://x.org', colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of bad) {
        const res = await http().post('/api/related-resources/').set(owner.auth).send(body);
        expect({ body, status: res.status, fields: Object.keys(res.body.errors) }).toEqual({
          body,
          status: 400,
          fields: [field],
        });
      }
    });

    it('reads and edits: the creator and staff; others get 404', async () => {
      await http().get(`/api/related-resources/${resource.id}/`).set(owner.auth).expect(200);
      await http().get(`/api/related-resources/${resource.id}/`).set(other.auth).expect(404);
      await http().get('/api/related-resources/abc/').set(owner.auth).expect(404);
      await http()
        .patch(`/api/related-resources/${resource.id}/`)
        .set(other.auth)
        .send({ label: 'stolen' })
        .expect(404);
      const patched = await http()
        .patch(`/api/related-resources/${resource.id}/`)
        .set(owner.auth)
        .send({ description: 'Geochemistry of the dredge', id: 999, can_edit: false })
        .expect(200);
      expect(patched.body.data).toMatchObject({ id: resource.id, description: 'Geochemistry of the dredge' });
      const byStaff = await http()
        .patch(`/api/related-resources/${resource.id}/`)
        .set(staff.auth)
        .send({ label: `${tag} Smith et al. 2024` })
        .expect(200);
      expect(byStaff.body.data).toMatchObject({ label: `${tag} Smith et al. 2024`, can_edit: true });
      await http().patch(`/api/related-resources/${resource.id}/`).set(owner.auth).send({ label: null }).expect(400);
    });

    it('links samples: edit permission on each needed (404 unseen, 403 seen but not editable), all or nothing', async () => {
      sample = (await register(owner, { name: `${tag}-linked`, latitude: 5, longitude: 6 }).expect(201)).body.data;
      const othersPublic = (await register(other, { name: `${tag}-others`, latitude: 5, longitude: 6 }).expect(201))
        .body.data;
      const othersDraft = (await register(other, { name: `${tag}-others-draft`, is_draft: true }).expect(201)).body
        .data;
      const link = (who: Who, ids: unknown[]) =>
        http().post(`/api/related-resources/${resource.id}/link-samples/`).set(who.auth).send({ sample_ids: ids });

      const forbidden = await link(owner, [sample.id, othersPublic.igsn]).expect(403);
      expect(Object.keys(forbidden.body.errors)).toEqual(['sample_ids.1']);
      const unseen = await link(owner, [sample.id, othersDraft.id]).expect(404);
      expect(Object.keys(unseen.body.errors)).toEqual(['sample_ids.1']);
      await link(owner, [sample.id, 'IEZZZ999999']).expect(404);
      await link(owner, []).expect(400);
      await link(owner, [{}]).expect(400);
      const before = (await http().get(`/api/samples/${sample.igsn}/`).set(owner.auth).expect(200)).body.data;
      expect(before.related_resources).toEqual([]);
      await link(other, [othersPublic.id]).expect(404); // not other's resource

      const ok = await link(owner, [sample.id, String(sample.id), sample.igsn]).expect(200);
      expect(ok.body.data).toEqual({ id: resource.id, sample_ids: [sample.id], sample_count: 1 });
      const after = (await http().get(`/api/samples/${sample.igsn}/`).expect(200)).body.data;
      expect(after.related_resources).toEqual([
        expect.objectContaining({
          id: resource.id,
          label: `${tag} Smith et al. 2024`,
          uri: 'https://doi.org/10.1594/PANGAEA.123456',
          uri_type: 'DOI',
          relation_type: 'IsReferencedBy',
        }),
      ]);
      expect(after.updated_at > before.updated_at).toBe(true);
      // Staff may link any resource to any sample.
      await link(staff, [othersPublic.id]).expect(200);
    });

    it("a sample's related_resources take ids beside inline links; a list sent replaces both kinds", async () => {
      const second = (
        await http()
          .post('/api/related-resources/')
          .set(owner.auth)
          .send({
            label: `${tag} image`,
            related_resource_type: 'image',
            uri: 'files/img-1.jpg',
            uri_type: 'local file',
          })
          .expect(201)
      ).body.data;
      const created = await register(owner, {
        name: `${tag}-with-ids`,
        latitude: 5,
        longitude: 6,
        related_resources: [resource.id, { uri: 'https://example.org/notes', description: 'Notes' }, `${second.id}`],
      }).expect(201);
      const listed = created.body.data.related_resources;
      expect(listed).toEqual([
        { uri: 'https://example.org/notes', description: 'Notes', relation_type: null },
        expect.objectContaining({ id: resource.id, relation_type: 'IsReferencedBy' }),
        expect.objectContaining({ id: second.id, uri_type: 'local file' }),
      ]);
      const igsn = created.body.data.igsn as string;

      const xml = (await http().get(`/api/samples/${igsn}/?format=datacite`).expect(200)).text;
      expect(xml).toContain(
        '<relatedIdentifier relatedIdentifierType="DOI" relationType="IsReferencedBy">10.1594/PANGAEA.123456</relatedIdentifier>',
      );
      expect(xml).toContain('https://example.org/notes');
      expect(xml).not.toContain('files/img-1.jpg');

      // What a fetch returned can be sent back as it is.
      await http().patch(`/api/samples/${igsn}/`).set(owner.auth).send({ related_resources: listed }).expect(200);
      const replaced = await http()
        .patch(`/api/samples/${igsn}/`)
        .set(owner.auth)
        .send({ related_resources: [{ id: second.id }] })
        .expect(200);
      expect(replaced.body.data.related_resources).toEqual([expect.objectContaining({ id: second.id })]);

      const foreign = (
        await http()
          .post('/api/related-resources/')
          .set(other.auth)
          .send({ label: 'theirs', related_resource_type: 'other', uri: 'https://example.org/theirs' })
          .expect(201)
      ).body.data;
      const refused = await http()
        .patch(`/api/samples/${igsn}/`)
        .set(owner.auth)
        .send({ related_resources: [second.id, foreign.id, 2147483647] })
        .expect(400);
      expect(Object.keys(refused.body.errors).sort()).toEqual(['related_resources.1.id', 'related_resources.2.id']);
      await http()
        .patch(`/api/samples/${igsn}/`)
        .set(owner.auth)
        .send({ related_resources: ['seven'] })
        .expect(400);
      // An edit of a linked resource shows on the sample, whose last update date moves (its ETag with it).
      const before = (await http().get(`/api/samples/${igsn}/`).set(owner.auth).expect(200)).body.data;
      await http()
        .patch(`/api/related-resources/${second.id}/`)
        .set(owner.auth)
        .send({ label: `${tag} image, renamed` })
        .expect(200);
      const after = (await http().get(`/api/samples/${igsn}/`).set(owner.auth).expect(200)).body.data;
      expect(after.related_resources).toEqual([expect.objectContaining({ label: `${tag} image, renamed` })]);
      expect(after.updated_at > before.updated_at).toBe(true);
    });
  });

  describe('batches and exports', () => {
    beforeAll(async () => {
      worker = await startWorkerProcess();
    }, 180_000);

    const upload = (file: Buffer) =>
      http().post('/api/batches/upload/').set(owner.auth).attach('file', file, 'sesar2.xlsx');
    const HEADERS = [
      'Object Type',
      'Sample Name',
      'Latitude (WGS84)',
      'longitude',
      'latitude_end',
      'External Sample ID',
    ];

    it('reads external_sample_id and SESAR2 headers; a duplicate in the file or among stored samples is a row error', async () => {
      const bad = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: HEADERS,
        rows: [
          ['Core', `${tag}-b1`, '40.5', -70, '40.6', `${tag}-B1`],
          ['Core', `${tag}-b2`, 40, -70, null, `${tag}-B1`],
          ['Core', `${tag}-b3`, 40, -70, null, `${tag}-FIELD-1`],
        ],
      });
      const failed = await waitForJob(app, owner, (await upload(bad).expect(202)).body.data.job_id, {
        until: jobFinished,
      });
      expect(failed.status).toBe('failed');
      const errors = (failed as unknown as { result: { errors: { row: number; message: string }[] } }).result.errors;
      expect(errors).toEqual([
        { row: 3, message: 'external_sample_id: duplicates the external sample id in row 2' },
        { row: 4, message: expect.stringContaining('external_sample_id: already identifies your sample') },
      ]);

      const good = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: HEADERS,
        rows: [
          ['Core', `${tag}-b1`, '40.5', -70, '40.6', `${tag}-B1`],
          ['Core', `${tag}-b2`, 40, -70, null, `${tag}-B2`],
        ],
      });
      const done = await waitForJob(app, owner, (await upload(good).expect(202)).body.data.job_id, {
        until: jobFinished,
      });
      expect(done.status).toBe('completed');
      const found = await http()
        .get('/api/samples/')
        .query({ external_sample_id: `${tag}-B1` })
        .set(owner.auth)
        .expect(200);
      expect(found.body.data).toEqual([
        expect.objectContaining({
          name: `${tag}-b1`,
          latitude: 40.5,
          end_latitude: 40.6,
          external_sample_id: `${tag}-B1`,
        }),
      ]);
    });

    it('exports external_sample_id as a column', async () => {
      const queued = (
        await http()
          .post('/api/samples/export/')
          .set(owner.auth)
          .send({ external_sample_id: `${tag}-FIELD-1`, format: 'csv' })
          .expect(202)
      ).body.data;
      const job = await waitForJob(app, owner, queued.job_id as string, { until: jobFinished });
      expect(job.status).toBe('completed');
      const file = await http()
        .get(`/api/jobs/${queued.job_id}/download/`)
        .set(owner.auth)
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        })
        .expect(200);
      const [header, row] = (file.body as Buffer)
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/);
      const columns = header.split(',');
      const index = columns.indexOf('External Sample ID');
      expect(index).toBeGreaterThan(-1);
      expect(row.split(',')[index]).toBe(`${tag}-FIELD-1`);
    });
  });
});
