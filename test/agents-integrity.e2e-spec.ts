import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createRegistrant, createUserWithToken, uniqueOrcid, uniqueRor } from './support/auth';
import {
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
  readLegacyResults,
} from './support/legacy-xml-client';
import { createTestApp } from './support/test-app';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook } from './support/workbooks';
import { waitForJob } from './support/jobs';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
type Auth = { auth: { Authorization: string } };

/** A word no other test uses, so names and searches see only this test's rows. */
const tag = () => randomUUID().slice(0, 8);

describe('agents and vocabularies: data you can trust', () => {
  let app: INestApplication;
  let dataSource: DataSource;
  let owner: Registrant;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    dataSource = app.get(DataSource);
    owner = await createRegistrant(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const register = (body: Record<string, unknown>, who: Auth = owner) =>
    http()
      .post('/api/samples/')
      .set(who.auth)
      .send({
        registry_code: owner.code,
        name: `sample-${tag()}`,
        object_type: 'Individual sample',
        latitude: 41.5,
        longitude: -72.8,
        ...body,
      });
  /** Samples under this suite's registry code (other suites register in the same database meanwhile). */
  const sampleCount = async () =>
    Number((await dataSource.query('SELECT count(*) AS n FROM sample WHERE registry_code = $1', [owner.code]))[0].n);

  describe('individuals: an identifier decides', () => {
    it('keeps two people with one name and different ORCIDs apart, and never merges them by name', async () => {
      const name = `Marie Tharp ${tag()}`;
      const [first, second] = [uniqueOrcid(), uniqueOrcid()];
      const a = await register({ collectors: [{ individual: { label: name, individual_uri: first } }] }).expect(201);
      const b = await register({ collectors: [{ individual: { label: name, individual_uri: second } }] }).expect(201);
      const personA = a.body.data.collectors[0].individual;
      const personB = b.body.data.collectors[0].individual;
      expect(personA).toMatchObject({ label: name, individual_uri: first });
      expect(personB).toMatchObject({ label: name, individual_uri: second });
      expect(personB.id).not.toBe(personA.id);

      // The same ORCID written another way is the same person.
      const bare = first.replace('https://orcid.org/', '');
      const again = await register({
        collectors: [{ individual: { label: name.toUpperCase(), individual_uri: bare } }],
      });
      expect(again.status).toBe(201);
      expect(again.body.data.collectors[0].individual.id).toBe(personA.id);

      // A name alone no longer says which: 409 naming the field, nothing stored.
      const before = await sampleCount();
      const ambiguous = await register({ collectors: [{ individual: { label: name } }] }).expect(409);
      expect(Object.keys(ambiguous.body.errors)).toEqual(['collectors.0.individual.label']);
      expect(ambiguous.body.message).toContain(`ids ${personA.id}, ${personB.id}`);
      expect(ambiguous.body.message).toContain('individual_uri');
      expect(await sampleCount()).toBe(before);
      const people = await http()
        .get(`/api/individuals/?search=${encodeURIComponent(name)}`)
        .expect(200);
      expect(people.body.data.map((p: { id: number }) => p.id).sort()).toEqual([personA.id, personB.id].sort());
    });

    it('refuses a different name under a known ORCID with 409 naming the field and the stored value', async () => {
      const name = `Bruce Heezen ${tag()}`;
      const orcid = uniqueOrcid();
      await register({ collectors: [{ individual: { label: name, individual_uri: orcid } }] }).expect(201);
      const before = await sampleCount();
      const res = await register({
        collectors: [{ description: 'PI' }, { individual: { label: 'B. Heezen', individual_uri: orcid } }],
      }).expect(409);
      expect(res.body.errors).toEqual({ 'collectors.1.individual.label': [`the stored value is "${name}"`] });
      expect(res.body.message).toContain(`"B. Heezen" differs from the stored "${name}"`);
      expect(res.body.message).toMatch(/PATCH \/api\/individuals\/\d+\//);
      expect(await sampleCount()).toBe(before);
    });

    it('matches a name that is unambiguous, fills in what it lacks, and refuses what contradicts it', async () => {
      const last = `Lee${tag()}`;
      const created = await register({ collectors: [{ individual: { label: `Bo ${last}` } }] }).expect(201);
      const person = created.body.data.collectors[0].individual;
      expect(person).toMatchObject({ label: `Bo ${last}`, fname: null, lname: null });
      const filled = await register({ collectors: [{ individual: { fname: 'Bo', lname: last } }] }).expect(201);
      expect(filled.body.data.collectors[0].individual).toMatchObject({ id: person.id, fname: 'Bo', lname: last });
      const stored = await http().get(`/api/individuals/${person.id}/`).expect(200);
      expect(stored.body.data).toMatchObject({ fname: 'Bo', lname: last });
      const contradicting = await register({
        collectors: [{ individual: { label: `Bo ${last}`, fname: 'Robert' } }],
      }).expect(409);
      expect(contradicting.body.errors).toEqual({ 'collectors.0.individual.fname': ['the stored value is "Bo"'] });
    });

    it('a new ORCID with a known name is a new person, not the existing one', async () => {
      const name = `Jane Roe ${tag()}`;
      const plain = (await register({ collectors: [{ individual: { label: name } }] }).expect(201)).body.data;
      const orcid = uniqueOrcid();
      const withId = await register({ collectors: [{ individual: { label: name, individual_uri: orcid } }] });
      expect(withId.status).toBe(201);
      expect(withId.body.data.collectors[0].individual.id).not.toBe(plain.collectors[0].individual.id);
      expect(withId.body.data.collectors[0].individual.individual_uri).toBe(orcid);
      const original = await http().get(`/api/individuals/${plain.collectors[0].individual.id}/`).expect(200);
      expect(original.body.data.individual_uri).toBeNull();
    });

    it('POST /api/individuals/ refuses an ORCID another individual has', async () => {
      const user = await createUserWithToken(app);
      const orcid = uniqueOrcid();
      const first = await http()
        .post('/api/individuals/')
        .set(user.auth)
        .send({ label: `A ${tag()}`, individual_uri: orcid });
      expect(first.status).toBe(201);
      const second = await http()
        .post('/api/individuals/')
        .set(user.auth)
        .send({ label: `B ${tag()}`, individual_uri: orcid.replace('https://', 'http://') })
        .expect(409);
      expect(second.body.errors).toEqual({
        individual_uri: [`already the individual_uri of individual ${first.body.data.id}`],
      });
    });

    it('resolves one person under concurrency when ten writes send the same new ORCID', async () => {
      const name = `Concurrent ${tag()}`;
      const orcid = uniqueOrcid();
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          register({ collectors: [{ individual: { label: name, individual_uri: orcid } }] }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(new Set(results.map((r) => r.body.data.collectors[0].individual.id as number)).size).toBe(1);
    });
  });

  describe('institutions: a ROR id decides', () => {
    it('keeps same-named institutions with different ROR ids apart and refuses a different name under one', async () => {
      const label = `Department of Geology ${tag()}`;
      const [first, second] = [uniqueRor(), uniqueRor()];
      const a = await register({ collectors: [{ institution: { label, ror: first, city: 'Bergen' } }] }).expect(201);
      const b = await register({ collectors: [{ institution: { label, ror: `https://ror.org/${second}` } }] });
      expect(b.status).toBe(201);
      const orgA = a.body.data.collectors[0].institution;
      expect(b.body.data.collectors[0].institution.id).not.toBe(orgA.id);
      const same = await register({ collectors: [{ institution: { label, ror: `https://ror.org/${first}` } }] });
      expect(same.body.data.collectors[0].institution.id).toBe(orgA.id);

      const renamed = await register({ collectors: [{ institution: { label: 'Geology', ror: first } }] }).expect(409);
      expect(renamed.body.errors).toEqual({ 'collectors.0.institution.label': [`the stored value is "${label}"`] });
      const moved = await register({ collectors: [{ institution: { label, ror: first, city: 'Oslo' } }] }).expect(409);
      expect(moved.body.errors).toEqual({ 'collectors.0.institution.city': ['the stored value is "Bergen"'] });
      const ambiguous = await register({ collectors: [{ institution: { label } }] }).expect(409);
      expect(Object.keys(ambiguous.body.errors)).toEqual(['collectors.0.institution.label']);
    });
  });

  describe('platforms, launch platforms and archives: what was sent is kept or refused', () => {
    it('refuses "Boat" for a platform stored as "Ship", naming the field and the stored value', async () => {
      const label = `R/V Atlantis ${tag()}`;
      const first = await register({ platform: { label, platform_type: 'Ship' } }).expect(201);
      expect(first.body.data.platform).toMatchObject({ label, platform_type: 'Ship' });
      const before = await sampleCount();
      const boat = await register({ platform: { label, platform_type: 'Boat' } });
      expect(boat.status).toBe(409);
      expect(boat.body.errors).toEqual({ 'platform.platform_type': ['the stored value is "Ship"'] });
      expect(boat.body.message).toContain(`Platform ${first.body.data.platform.id}`);
      expect(await sampleCount()).toBe(before);
      // The same type in another case, or no type at all, is the same platform.
      for (const platform of [{ label: label.toLowerCase(), platform_type: 'ship' }, { label }]) {
        const res = await register({ platform }).expect(201);
        expect(res.body.data.platform).toMatchObject({ id: first.body.data.platform.id, platform_type: 'Ship' });
      }
    });

    it('fills a blank type or description in, then holds to it', async () => {
      const label = `Drill rig ${tag()}`;
      const bare = await register({ platform: { label } }).expect(201);
      expect(bare.body.data.platform.platform_type).toBeNull();
      const typed = await register({ platform: { label, platform_type: 'Drill rig', description: 'Land rig' } });
      expect(typed.status).toBe(201);
      expect(typed.body.data.platform).toMatchObject({
        id: bare.body.data.platform.id,
        platform_type: 'Drill rig',
        description: 'Land rig',
      });
      const other = await register({ platform: { label, description: 'Offshore rig' } }).expect(409);
      expect(other.body.errors).toEqual({ 'platform.description': ['the stored value is "Land rig"'] });
    });

    it('holds launch platforms and archives to the same rule', async () => {
      const vehicle = `Jason ${tag()}`;
      await register({ launch_platform: { label: vehicle, launch_type: 'ROV' } }).expect(201);
      const hov = await register({ launch_platform: { label: vehicle, launch_type: 'HOV' } }).expect(409);
      expect(hov.body.errors).toEqual({ 'launch_platform.launch_type': ['the stored value is "ROV"'] });

      const archive = `Core store ${tag()}`;
      await register({ current_archive: { label: archive, city: 'Corvallis', country: 'US' } }).expect(201);
      await register({ original_archive: { label: archive.toUpperCase(), city: 'corvallis' } }).expect(201);
      const moved = await register({ original_archive: { label: archive, country: 'Norway' } }).expect(409);
      expect(moved.body.errors).toEqual({ 'original_archive.country': ['the stored value is "United States"'] });
    });

    it('applies the rule to legacy XML documents, failing only the sample that contradicts', async () => {
      const label = `R/V Knorr ${tag()}`;
      await register({ platform: { label, platform_type: 'Ship' } }).expect(201);
      const [ok, bad] = [`ok-${tag()}`, `bad-${tag()}`];
      const xml = legacySamplesDocument(
        minimalLegacySample(
          owner.code,
          ok,
          `<platform_name>${label}</platform_name><platform_type>Ship</platform_type>`,
        ),
        minimalLegacySample(
          owner.code,
          bad,
          `<platform_name>${label}</platform_name><platform_type>Boat</platform_type>`,
        ),
      );
      const res = await postLegacyXml(app, '/webservices/upload.php', xml, { headers: owner.auth });
      const results = await readLegacyResults(res.text);
      expect(results.samples[0].status).toMatch(/saved successfully/);
      expect(results.samples[1]).toMatchObject({ attributeName: bad, status: 'Not Saved' });
      expect(results.samples[1].error).toContain('platform.platform_type');
      expect(results.samples[1].error).toContain('"Ship"');
    });
  });

  describe('PATCH: corrections by those who may edit', () => {
    it('lets the creator and staff correct individuals, institutions, archives and platforms; nobody else', async () => {
      const creator = await createRegistrant(app);
      const stranger = await createUserWithToken(app);
      const staff = await createUserWithToken(app, { isStaff: true });
      const word = tag();
      const sample = (
        await register(
          {
            registry_code: creator.code,
            collectors: [{ individual: { label: `Ann Smith ${word}` }, institution: { label: `Lab ${word}` } }],
            platform: { label: `Boat ${word}`, platform_type: 'Ship' },
            current_archive: { label: `Shelf ${word}` },
          },
          creator,
        ).expect(201)
      ).body.data;
      const paths = {
        individual: `/api/individuals/${sample.collectors[0].individual.id}/`,
        institution: `/api/institutions/${sample.collectors[0].institution.id}/`,
        archive: `/api/archives/${sample.current_archive.id}/`,
        platform: `/api/platforms/${sample.platform.id}/`,
      };
      const fixes: Record<keyof typeof paths, [Record<string, unknown>, Record<string, unknown>]> = {
        individual: [{ label: `Anne Smith ${word}` }, { individual_uri: uniqueOrcid() }],
        institution: [{ label: `Laboratory ${word}`, country: 'NO' }, { city: 'Bergen' }],
        archive: [{ label: `Shelf A ${word}`, url: 'https://example.org/shelf' }, { city: 'Corvallis' }],
        platform: [{ platform_type: 'Boat', description: 'Small boat' }, { label: `Skiff ${word}` }],
      };
      for (const [kind, path] of Object.entries(paths) as [keyof typeof paths, string][]) {
        const [byCreator, byStaff] = fixes[kind];
        await http().patch(path).send(byCreator).expect(401);
        const forbidden = await http().patch(path).set(stranger.auth).send(byCreator).expect(403);
        expect(forbidden.body.errors).toEqual({});
        const read = await http().get(path).set(creator.auth).expect(200);
        expect({ kind, can_edit: read.body.data.can_edit }).toEqual({ kind, can_edit: true });
        const patched = await http().patch(path).set(creator.auth).send(byCreator).expect(200);
        expect(patched.body.data).toMatchObject(
          kind === 'institution' ? { ...byCreator, country: 'Norway' } : byCreator,
        );
        const byStaffRes = await http().patch(path).set(staff.auth).send(byStaff).expect(200);
        expect(byStaffRes.body.data).toMatchObject(byStaff);
        const unknown = await http().patch(path).set(creator.auth).send({ colour: 'red' }).expect(400);
        expect(Object.keys(unknown.body.errors)).toEqual(['colour']);
      }
      const refetched = await http().get(`/api/samples/${sample.igsn}/`).expect(200);
      expect(refetched.body.data.platform).toMatchObject({ label: `Skiff ${word}`, platform_type: 'Boat' });
      expect(refetched.body.data.collectors[0].individual.label).toBe(`Anne Smith ${word}`);

      // The corrected platform is what later writes are held to.
      const stale = await register({ platform: { label: `Skiff ${word}`, platform_type: 'Ship' } }).expect(409);
      expect(stale.body.errors).toEqual({ 'platform.platform_type': ['the stored value is "Boat"'] });

      await http().patch('/api/platforms/2147483000/').set(staff.auth).send({ description: 'x' }).expect(404);
      await http().patch('/api/archives/abc/').set(staff.auth).send({ description: 'x' }).expect(404);
      const badType = await http()
        .patch(paths.platform)
        .set(staff.auth)
        .send({ platform_type: 'Spaceship' })
        .expect(400);
      expect(badType.body.message).toContain('/api/platform-types/');
      await http().patch(paths.archive).set(staff.auth).send({ label: null }).expect(400);
      await http().patch(paths.archive).set(staff.auth).send({ label: '  ' }).expect(400);
    });

    it("answers 409 when a correction would take another record's label or identifier", async () => {
      const staff = await createUserWithToken(app, { isStaff: true });
      const word = tag();
      const archives = await Promise.all(
        [`Vault ${word}`, `Cellar ${word}`].map(
          async (label) =>
            (await http().post('/api/archives/').set(staff.auth).send({ label }).expect(201)).body.data as {
              id: number;
            },
        ),
      );
      const taken = await http()
        .patch(`/api/archives/${archives[1].id}/`)
        .set(staff.auth)
        .send({ label: `vault ${word}` })
        .expect(409);
      expect(taken.body.errors).toEqual({ label: ['an archive with this label already exists'] });
      const orcid = uniqueOrcid();
      const people = await Promise.all(
        [orcid, null].map(
          async (individual_uri) =>
            (
              await http()
                .post('/api/individuals/')
                .set(staff.auth)
                .send({ label: `P ${tag()}`, individual_uri })
                .expect(201)
            ).body.data as { id: number },
        ),
      );
      const clash = await http()
        .patch(`/api/individuals/${people[1].id}/`)
        .set(staff.auth)
        .send({ individual_uri: orcid })
        .expect(409);
      expect(Object.keys(clash.body.errors)).toEqual(['individual_uri']);
      // Re-sending its own identifier is no clash.
      await http()
        .patch(`/api/individuals/${people[0].id}/`)
        .set(staff.auth)
        .send({ individual_uri: orcid })
        .expect(200);
    });

    it('documents the PATCH routes', async () => {
      const res = await http().get('/api/schema').expect(200);
      for (const path of [
        '/api/archives/{id}',
        '/api/institutions/{id}',
        '/api/individuals/{id}',
        '/api/platforms/{id}',
      ]) {
        const patch = res.body.paths[path]?.patch;
        expect(patch?.security).toEqual([{ bearer: [] }]);
        expect(Object.keys(patch.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409']);
      }
    });
  });

  describe('material types: checked against GET /api/material-types/', () => {
    it('refuses an unknown general material type with 400 naming the field and the vocabulary', async () => {
      const before = await sampleCount();
      const res = await register({ general_material_type: 'Rokc' }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['general_material_type']);
      expect(res.body.message).toContain('GET /api/material-types/');
      expect(await sampleCount()).toBe(before);
      const ok = await register({ general_material_type: 'sediment' }).expect(201);
      expect(ok.body.data.general_material_type).toBe('Sediment');
      const patched = await http()
        .patch(`/api/samples/${ok.body.data.igsn}/`)
        .set(owner.auth)
        .send({ general_material_type: 'Moon dust' })
        .expect(400);
      expect(Object.keys(patched.body.errors)).toEqual(['general_material_type']);
    });
  });

  describe('batch uploads', () => {
    let worker: WorkerProcess | undefined;

    beforeAll(async () => {
      worker = await startWorkerProcess();
    }, 90_000);

    afterAll(async () => {
      await worker?.stop();
    });

    it("report an unknown material type and a contradicted platform as the rows' errors", async () => {
      const word = tag();
      await register({ platform: { label: `R/V Batch ${word}`, platform_type: 'Ship' } }).expect(201);
      const file = buildWorkbook({
        metadata: { registry_code: owner.code },
        headers: [
          'Object Type',
          'Sample Name',
          'Latitude (WGS84)',
          'Longitude (WGS84)',
          'General Material Type',
          'Platform Name',
          'Platform Type',
        ],
        rows: [
          ['Core', `${word}-1`, 40, -70, 'Rock', `R/V Batch ${word}`, 'Ship'],
          ['Core', `${word}-2`, 40, -70, 'Rokc', `R/V Batch ${word}`, ''],
          ['Core', `${word}-3`, 40, -70, 'Rock', `R/V Batch ${word}`, 'Boat'],
        ],
      });
      const queued = (
        await http().post('/api/batches/upload/').set(owner.auth).attach('file', file, 'agents.xlsx').expect(202)
      ).body.data;
      const job = await waitForJob<{ status: string; result: { errors: { row: number; message: string }[] } }>(
        app,
        owner,
        queued.job_id,
      );
      expect(job.status).toBe('failed');
      expect(job.result.errors).toEqual([
        { row: 3, message: expect.stringMatching(/^general_material_type: .*GET \/api\/material-types\//) },
        { row: 4, message: 'platform.platform_type: the stored value is "Ship"' },
      ]);
    });
  });
});
