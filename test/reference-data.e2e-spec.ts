import { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ReferenceDataSeed1763800300100 } from '../migrations/1763800300100-ReferenceDataSeed';
import { ApiError } from '../src/core/http/api-error';
import { ArchivesService } from '../src/modules/agents/archives.service';
import { CollectorsService } from '../src/modules/agents/collectors.service';
import { ObjectTypeResolver } from '../src/modules/vocabularies/object-type.resolver';
import { PlatformsService } from '../src/modules/vocabularies/platforms.service';
import { createUserWithToken, uniqueOrcid, uniqueRor } from './support/auth';
import { createTestApp } from './support/test-app';

/** A word no other suite (or earlier test) uses, so searches see only this test's rows. */
const tag = () => `zq${randomBytes(4).toString('hex')}`;

const VOCABULARY_TABLES = [
  'country',
  'object_type',
  'geologic_time_scale',
  'agent_role_type',
  'material_type',
  'location_method',
  'sampling_method',
  'platform_type',
  'launch_type',
];

/** The 400 a service threw, as the API would answer it. */
async function apiErrorOf(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return { status: error.getStatus(), body: error.getResponse() };
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('reference data', () => {
  let app: INestApplication;
  let dataSource: DataSource;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    dataSource = app.get(DataSource);
  });

  afterAll(async () => {
    await app.close();
  });

  describe('seeded vocabularies', () => {
    it('lists the 249 active ISO 3166-1 countries with their alpha-2 codes', async () => {
      const res = await http().get('/api/countries/').expect(200);
      const countries = res.body.data as { id: number; label: string; iso3166code: string }[];
      expect(countries).toHaveLength(249);
      expect(Object.keys(countries[0]).sort()).toEqual(['id', 'iso3166code', 'label']);
      expect(new Set(countries.map((c) => c.iso3166code)).size).toBe(249);
      expect(countries.every((c) => /^[A-Z]{2}$/.test(c.iso3166code))).toBe(true);
      // Inactive names (not ISO 3166-1) are seeded but not offered.
      expect(countries.map((c) => c.label)).not.toContain('Kosovo');
      expect(await dataSource.query('SELECT count(*)::int AS n FROM country')).toEqual([{ n: 252 }]);
      const slashless = await http().get('/api/countries').expect(200);
      expect(slashless.body).toEqual(res.body);
    });

    it('searches countries without regard to accents or case, best matches first', async () => {
      for (const search of ['cote', 'CÔTE', "cote d'ivoire", 'IVOIRE']) {
        const res = await http().get('/api/countries/').query({ search }).expect(200);
        expect(res.body.data.map((c: { label: string }) => c.label)).toEqual(["Côte d'Ivoire"]);
      }
      const aland = await http().get('/api/countries/?search=aland').expect(200);
      expect(aland.body.data[0]).toMatchObject({ label: 'Åland', iso3166code: 'AX' });
      // Exact, then prefix, then anywhere; then by label.
      const guinea = await http().get('/api/countries/?search=guinea').expect(200);
      expect(guinea.body.data.map((c: { label: string }) => c.label)).toEqual([
        'Guinea',
        'Guinea-Bissau',
        'Equatorial Guinea',
        'Papua New Guinea',
      ]);
      // An ISO code matches exactly and comes first.
      const code = await http().get('/api/countries/?search=ci').expect(200);
      expect(code.body.data[0].label).toBe("Côte d'Ivoire");
      const none = await http().get('/api/countries/?search=atlantis').expect(200);
      expect(none.body).toEqual({ data: [] });
    });

    it('refuses a search that is too long, repeated, or an unknown parameter', async () => {
      const long = await http()
        .get('/api/countries/')
        .query({ search: 'x'.repeat(201) })
        .expect(400);
      expect(Object.keys(long.body.errors)).toEqual(['search']);
      const twice = await http().get('/api/countries/?search=a&search=b').expect(400);
      expect(Object.keys(twice.body.errors)).toEqual(['search']);
      const unknown = await http().get('/api/countries/?q=a').expect(400);
      expect(Object.keys(unknown.body.errors)).toEqual(['q']);
    });

    it('serves the full object-type tree with hierarchical labels, also under /api/vocab/', async () => {
      const res = await http().get('/api/object-types/').expect(200);
      const types = res.body.data as {
        id: number;
        label: string;
        hierarchical_label: string;
        parent_type: string | null;
      }[];
      expect(types).toHaveLength(74);
      expect(Object.keys(types[0]).sort()).toEqual([
        'description',
        'hierarchical_label',
        'id',
        'label',
        'parent_type',
        'scheme_name',
        'scheme_uri',
        'uri',
      ]);
      expect(types.filter((t) => t.parent_type === null)).toHaveLength(6);
      const byLabel = new Map(types.map((t) => [t.label, t]));
      for (const type of types) {
        const expected =
          type.parent_type === null
            ? type.label
            : `${byLabel.get(type.parent_type)?.hierarchical_label} > ${type.label}`;
        expect(type.hierarchical_label).toBe(expected);
      }
      expect(byLabel.get('Polished thin section')).toMatchObject({
        hierarchical_label: 'Analytical preparations > Sectioned specimen > Thin section > Polished thin section',
        parent_type: 'Thin section',
      });
      // Path order: every parent before its children.
      const seen = new Set<string>();
      for (const type of types) {
        if (type.parent_type !== null) expect(seen.has(type.parent_type)).toBe(true);
        seen.add(type.label);
      }
      const alias = await http().get('/api/vocab/object-types/').expect(200);
      expect(alias.body).toEqual(res.body);
    });

    it('serves the geologic time scale with numeric bounds in Ma, searchable', async () => {
      const all = await http().get('/api/geologic-time-scales/').expect(200);
      expect(all.body.data).toHaveLength(152);
      const res = await http().get('/api/geologic-time-scales/?search=CRETACEOUS').expect(200);
      expect(res.body.data).toEqual([
        {
          id: expect.any(Number),
          label: 'Cretaceous',
          description: null,
          geologic_time_interval_uri: 'http://resource.geosciml.org/classifier/ics/ischart/Cretaceous',
          source: 'ICS International Chronostratigraphic Chart v2024-12',
          scheme_uri: 'http://resource.geosciml.org/classifier/ics/ischart/',
          numeric_older_bound: 143.1,
          numeric_younger_bound: 66,
          notation: 'K',
        },
      ]);
    });

    it.each([
      ['/api/agent-role-types/', 15, 'Collector'],
      ['/api/material-types/', 15, 'Rock'],
      ['/api/location-methods/', 23, 'DGPS'],
      ['/api/sampling-methods/', 34, 'Coring>GravityCorer'],
      ['/api/platform-types/', 50, 'AUV'],
      ['/api/launch-types/', 6, 'ROV'],
    ])('lists %s completely (%i terms)', async (path, count, example) => {
      const res = await http().get(path).expect(200);
      expect(res.body.data).toHaveLength(count);
      expect(res.body.data.map((t: { label: string }) => t.label)).toContain(example);
      const search = await http().get(path).query({ search: example.toLowerCase() }).expect(200);
      expect(search.body.data[0].label).toBe(example);
    });

    it('re-running the seed changes nothing', async () => {
      const snapshot = async () => {
        const tables: Record<string, unknown> = {};
        for (const table of VOCABULARY_TABLES) {
          // xmin changes whenever a row is rewritten, even with identical values.
          tables[table] = await dataSource.query(
            `SELECT id, xmin::text AS xmin, ctid::text AS ctid FROM ${table} ORDER BY id`,
          );
        }
        return tables;
      };
      const before = await snapshot();
      const runner = dataSource.createQueryRunner();
      try {
        const report = await new ReferenceDataSeed1763800300100().seed(runner);
        expect(Object.keys(report).sort()).toEqual([...VOCABULARY_TABLES].sort());
        for (const counts of Object.values(report)) expect(counts).toEqual({ inserted: 0, updated: 0 });
      } finally {
        await runner.release();
      }
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('object type resolution', () => {
    let resolver: ObjectTypeResolver;
    beforeAll(() => {
      resolver = app.get(ObjectTypeResolver);
    });

    it('resolves a leaf label case-insensitively and a full path', async () => {
      const leaf = await resolver.resolve('  thin SECTION ');
      expect(leaf).toMatchObject({
        label: 'Thin section',
        hierarchicalLabel: 'Analytical preparations > Sectioned specimen > Thin section',
      });
      const path = await resolver.resolve('analytical preparations>Sectioned specimen >  Thin section');
      expect(path.id).toBe(leaf.id);
      expect((await resolver.resolve('Core')).hierarchicalLabel).toBe('Marine and lacustrine samples > Core');
    });

    it('refuses numeric ids with a message pointing to the leaf label', async () => {
      for (const value of [42, '42']) {
        const { status, body } = await apiErrorOf(resolver.resolve(value));
        expect(status).toBe(400);
        expect(body).toEqual({
          message: expect.stringMatching(/leaf label/),
          errors: {
            object_type: [expect.stringMatching(/numeric object type ids are not accepted; use the leaf label/)],
          },
        });
      }
    });

    it('refuses unknown labels and paths that do not exist, naming the field', async () => {
      for (const value of ['Moon rock', 'Biological samples > Thin section', '', null]) {
        const { status, body } = await apiErrorOf(resolver.resolve(value, { field: 'samples.3.object_type' }));
        expect(status).toBe(400);
        expect(Object.keys((body as { errors: object }).errors)).toEqual(['samples.3.object_type']);
      }
    });
  });

  describe('archives', () => {
    it('needs a token to create', async () => {
      const res = await http()
        .post('/api/archives/')
        .send({ label: `${tag()} Repository` })
        .expect(401);
      expect(res.body).toEqual({ message: expect.any(String), errors: {} });
    });

    it('creates an archive and lists it', async () => {
      const user = await createUserWithToken(app);
      const word = tag();
      const institution = await http()
        .post('/api/institutions/')
        .set(user.auth)
        .send({ label: `${word} University`, country: 'us' })
        .expect(201);
      const res = await http()
        .post('/api/archives')
        .set(user.auth)
        .send({
          label: `  Musée ${word} de Géologie `,
          alt_label: 'MG',
          description: 'Rock collection',
          country: 'france',
          country_subdivision: 'Île-de-France',
          city: 'Paris',
          url: 'https://example.org/musee',
          uri: '123e4567-e89b-12d3-a456-426614174000',
          parent_institution: institution.body.data.id,
        })
        .expect(201);
      expect(res.body).toEqual({
        data: {
          id: expect.any(Number),
          label: `Musée ${word} de Géologie`,
          alt_label: 'MG',
          description: 'Rock collection',
          country: 'France',
          country_subdivision: 'Île-de-France',
          city: 'Paris',
          url: 'https://example.org/musee',
          uri: '123e4567-e89b-12d3-a456-426614174000',
          parent_institution: {
            id: institution.body.data.id,
            institution_type: 'institution',
            label: `${word} University`,
            alt_label: null,
            description: null,
            country: 'United States',
            country_subdivision: null,
            city: null,
            ror: null,
            parent_institutions: [],
            can_edit: true,
            created_by: user.userId,
          },
          can_edit: true,
          created_by: user.userId,
        },
      });
      // Accent- and case-insensitive, anonymous readers may not edit.
      const list = await http().get(`/api/archives/?search=MUSEE ${word} DE GEOLOGIE`).expect(200);
      expect(list.body.data).toHaveLength(1);
      expect(list.body.data[0]).toMatchObject({ id: res.body.data.id, can_edit: false });
      const other = await createUserWithToken(app);
      const seenByOther = await http().get(`/api/archives/?search=${word}`).set(other.auth).expect(200);
      expect(seenByOther.body.data[0].can_edit).toBe(false);
      const staff = await createUserWithToken(app, { isStaff: true });
      const seenByStaff = await http().get(`/api/archives/?search=${word}`).set(staff.auth).expect(200);
      expect(seenByStaff.body.data[0].can_edit).toBe(true);
    });

    it('accepts an ISO code for the country and ignores read-only fields sent back', async () => {
      const user = await createUserWithToken(app);
      const res = await http()
        .post('/api/archives/')
        .set(user.auth)
        .send({ label: `${tag()} Core Store`, country: 'de', id: 999, can_edit: false, created_by: 1 })
        .expect(201);
      expect(res.body.data).toMatchObject({ country: 'Germany', can_edit: true, created_by: user.userId });
      expect(res.body.data.id).not.toBe(999);
      // A whole fetched archive sent back as a new one: its parent institution object counts as the id.
      const institution = await http().post('/api/institutions/').set(user.auth).send({ label: tag() }).expect(201);
      const first = await http()
        .post('/api/archives/')
        .set(user.auth)
        .send({ label: tag(), parent_institution: institution.body.data.id })
        .expect(201);
      const copy = await http()
        .post('/api/archives/')
        .set(user.auth)
        .send({ ...first.body.data, label: tag() })
        .expect(201);
      expect(copy.body.data.parent_institution.id).toBe(institution.body.data.id);
    });

    it('validates lengths, types, unknown fields, the country and the parent institution', async () => {
      const user = await createUserWithToken(app);
      const post = (body: object) => http().post('/api/archives/').set(user.auth).send(body);
      const long = await post({ label: 'x'.repeat(201) }).expect(400);
      expect(Object.keys(long.body.errors)).toEqual(['label']);
      expect((await post({ label: 'x'.repeat(200) }).expect(201)).body.data.label).toHaveLength(200);
      const wrongType = await post({ label: 123 }).expect(400);
      expect(Object.keys(wrongType.body.errors)).toEqual(['label']);
      const blank = await post({ label: '   ' }).expect(400);
      expect(Object.keys(blank.body.errors)).toEqual(['label']);
      const uri = await post({ label: tag(), uri: 'u'.repeat(37) }).expect(400);
      expect(Object.keys(uri.body.errors)).toEqual(['uri']);
      const parentType = await post({ label: tag(), parent_institution: 'one' }).expect(400);
      expect(Object.keys(parentType.body.errors)).toEqual(['parent_institution']);
      const unknown = await post({ label: tag(), colour: 'red' }).expect(400);
      expect(unknown.body.errors).toEqual({ colour: ['This field is not allowed.'] });
      const country = await post({ label: tag(), country: 'Atlantis' }).expect(400);
      expect(Object.keys(country.body.errors)).toEqual(['country']);
      const inactive = await post({ label: tag(), country: 'Kosovo' }).expect(400);
      expect(Object.keys(inactive.body.errors)).toEqual(['country']);
      const parent = await post({ label: tag(), parent_institution: 2147483000 }).expect(400);
      expect(parent.body).toEqual({
        message: 'Invalid parent_institution: no institution has id 2147483000.',
        errors: { parent_institution: ['no institution has id 2147483000'] },
      });
    });

    it('answers 409 for a label that exists, whatever its case and spacing', async () => {
      const user = await createUserWithToken(app);
      const label = `${tag()} Repository`;
      await http().post('/api/archives/').set(user.auth).send({ label }).expect(201);
      const again = await http()
        .post('/api/archives/')
        .set(user.auth)
        .send({ label: ` ${label.toUpperCase()}  ` })
        .expect(409);
      expect(again.body.errors).toEqual({ label: ['an archive with this label already exists'] });
    });

    it('creates one archive when the same label is posted concurrently', async () => {
      const user = await createUserWithToken(app);
      const label = `${tag()} Concurrent`;
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => http().post('/api/archives/').set(user.auth).send({ label })),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, ...Array<number>(9).fill(409)]);
      const rows = await dataSource.query('SELECT id FROM archive WHERE lower(label) = lower($1)', [label]);
      expect(rows).toHaveLength(1);
    });

    it('orders search results by relevance, then label, and limits them', async () => {
      const archives = app.get(ArchivesService);
      const word = tag();
      for (const label of [`Deep ${word} Repository`, `${word} Beta`, word, `${word} Alpha`]) {
        await archives.match({ label });
      }
      for (let i = 0; i < 20; i++) await archives.match({ label: `Filler ${word} ${String(i).padStart(2, '0')}` });
      const res = await http().get(`/api/archives/?search=${word.toUpperCase()}`).expect(200);
      expect(res.body.data).toHaveLength(20);
      expect(res.body.data.slice(0, 4).map((a: { label: string }) => a.label)).toEqual([
        word,
        `${word} Alpha`,
        `${word} Beta`,
        `Deep ${word} Repository`,
      ]);
      const all = await http().get(`/api/archives/?search=${word}&limit=100`).expect(200);
      expect(all.body.data).toHaveLength(24);
      const two = await http().get(`/api/archives/?search=${word}&limit=2`).expect(200);
      expect(two.body.data).toHaveLength(2);
      for (const limit of ['0', '101', 'abc', '1.5']) {
        const bad = await http().get(`/api/archives/?limit=${limit}`).expect(400);
        expect(Object.keys(bad.body.errors)).toEqual(['limit']);
      }
    });
  });

  describe('institutions and individuals', () => {
    it('needs a token to create', async () => {
      await http().post('/api/institutions/').send({ label: tag() }).expect(401);
      await http().post('/api/individuals/').send({ label: tag() }).expect(401);
    });

    it('creates, fetches and searches institutions', async () => {
      const user = await createUserWithToken(app);
      const word = tag();
      const created = await http()
        .post('/api/institutions/')
        .set(user.auth)
        .send({
          label: `Université ${word} de Genève`,
          alt_label: 'UNIGE',
          country: 'CH',
          city: 'Genève',
          ror: uniqueRor(),
          institution_type: 'museum',
          parent_institutions: [1],
        })
        .expect(201);
      expect(created.body.data).toMatchObject({
        label: `Université ${word} de Genève`,
        institution_type: 'institution',
        country: 'Switzerland',
        parent_institutions: [],
        can_edit: true,
        created_by: user.userId,
      });
      const id = created.body.data.id as number;
      const detail = await http().get(`/api/institutions/${id}/`).expect(200);
      expect(detail.body.data).toEqual({ ...created.body.data, can_edit: false });
      const search = await http().get(`/api/institutions/?search=universite ${word} de geneve`).expect(200);
      expect(search.body.data.map((i: { id: number }) => i.id)).toEqual([id]);
      const byAlt = await http().get(`/api/institutions/?search=unige`).expect(200);
      expect(byAlt.body.data.map((i: { id: number }) => i.id)).toContain(id);
      const ror = await http()
        .post('/api/institutions/')
        .set(user.auth)
        .send({ label: tag(), ror: 'r'.repeat(26) });
      expect(ror.status).toBe(400);
      expect(Object.keys(ror.body.errors)).toEqual(['ror']);
    });

    it('answers 404 for unknown and non-numeric ids', async () => {
      for (const path of ['/api/institutions/2147483000/', '/api/institutions/abc/', '/api/individuals/0/']) {
        const res = await http().get(path).expect(404);
        expect(res.body).toEqual({ message: expect.stringMatching(/not found/), errors: {} });
      }
      await http().get('/api/individuals/99999999999/').expect(404);
    });

    it('creates individuals from a label or a name, showing contact details only to editors', async () => {
      const user = await createUserWithToken(app);
      const word = tag();
      const created = await http()
        .post('/api/individuals/')
        .set(user.auth)
        .send({
          fname: 'Zoë',
          lname: `Ångström${word}`,
          email: 'zoe@example.org',
          phone: '+1 555 0100',
          individual_uri: uniqueOrcid(),
          country: 'Sweden',
          id: 5,
          institutions: [],
          can_edit: false,
        })
        .expect(201);
      expect(created.body.data).toMatchObject({
        label: `Zoë Ångström${word}`,
        fname: 'Zoë',
        email: 'zoe@example.org',
        phone: '+1 555 0100',
        country: 'Sweden',
        institutions: [],
        can_edit: true,
      });
      const id = created.body.data.id as number;
      const anonymous = await http().get(`/api/individuals/${id}`).expect(200);
      expect(anonymous.body.data).toMatchObject({
        email: null,
        phone: null,
        can_edit: false,
        label: `Zoë Ångström${word}`,
      });
      const own = await http().get(`/api/individuals/${id}`).set(user.auth).expect(200);
      expect(own.body.data).toMatchObject({ email: 'zoe@example.org', can_edit: true });
      const search = await http().get(`/api/individuals/?search=zoe angstrom${word}`).expect(200);
      expect(search.body.data.map((i: { id: number }) => i.id)).toEqual([id]);

      const nameless = await http()
        .post('/api/individuals/')
        .set(user.auth)
        .send({ description: 'someone' })
        .expect(400);
      expect(Object.keys(nameless.body.errors)).toEqual(['label']);
      const long = await http()
        .post('/api/individuals/')
        .set(user.auth)
        .send({ fname: 'x'.repeat(101) })
        .expect(400);
      expect(Object.keys(long.body.errors)).toEqual(['fname']);
    });
  });

  describe('create-or-match services', () => {
    it('files ten concurrent matches of one archive label under one row', async () => {
      const archives = app.get(ArchivesService);
      const label = `${tag()} Core Repository`;
      const variants = [label, label.toUpperCase(), ` ${label} `, label.toLowerCase()];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => archives.match({ label: variants[i % variants.length], country: 'NO' })),
      );
      expect(new Set(results.map((a) => a.id)).size).toBe(1);
      // Whichever call won stored its spelling, trimmed.
      expect(variants.map((v) => v.trim())).toContain(results[0].label);
      expect(results[0].country?.label).toBe('Norway');
      const rows = await dataSource.query('SELECT id FROM archive WHERE lower(btrim(label)) = lower($1)', [label]);
      expect(rows).toHaveLength(1);
    });

    it('runs inside the caller transaction (a rollback leaves nothing)', async () => {
      const archives = app.get(ArchivesService);
      const label = `${tag()} Rolled Back`;
      await expect(
        dataSource.transaction(async (manager) => {
          await archives.match({ label }, { manager });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await dataSource.query('SELECT id FROM archive WHERE label = $1', [label])).toEqual([]);
    });

    it('names the field of a bad inline archive', async () => {
      const { status, body } = await apiErrorOf(
        app.get(ArchivesService).match({ label: tag(), country: 'Narnia' }, { field: 'current_archive' }),
      );
      expect(status).toBe(400);
      expect(Object.keys((body as { errors: object }).errors)).toEqual(['current_archive.country']);
    });

    it('resolves collectors: one individual, institution and collector row under concurrency, and ids', async () => {
      const collectors = app.get(CollectorsService);
      const word = tag();
      const input = {
        individual: { fname: 'Marie', lname: `Tharp ${word}` },
        institution: { label: `${word} Observatory`, country: 'us' },
        description: 'Chief scientist',
      };
      const results = await Promise.all(
        Array.from({ length: 10 }, () => collectors.resolve([input, { individual: { label: `marie THARP ${word}` } }])),
      );
      const ids = new Set(results.map((r) => r[0].id));
      expect(ids.size).toBe(1);
      expect(results[0][0]).toMatchObject({
        description: 'Chief scientist',
        individual: { label: `Marie Tharp ${word}` },
        institution: { label: `${word} Observatory` },
      });
      expect(results[0][1].individualId).toBe(results[0][0].individualId);
      expect(results[0][1].institutionId).toBeNull();
      const people = await dataSource.query('SELECT id FROM individual WHERE lower(label) = lower($1)', [
        `Marie Tharp ${word}`,
      ]);
      expect(people).toHaveLength(1);
      const institutions = await dataSource.query('SELECT id FROM institution WHERE label = $1', [
        `${word} Observatory`,
      ]);
      expect(institutions).toHaveLength(1);

      const [byId] = await collectors.resolve([results[0][0].id]);
      expect(byId.id).toBe(results[0][0].id);

      const unknown = await apiErrorOf(collectors.resolve([{ description: 'x' }, 2147483000]));
      expect(Object.keys((unknown.body as { errors: object }).errors)).toEqual(['collectors.1.id']);
      const country = await apiErrorOf(collectors.resolve([{ institution: { label: word, country: 'Oz' } }]));
      expect(Object.keys((country.body as { errors: object }).errors)).toEqual(['collectors.0.institution.country']);
      const empty = await apiErrorOf(collectors.resolve([{ individual: {} }]));
      expect(Object.keys((empty.body as { errors: object }).errors)).toEqual(['collectors.0']);
    });

    it('matches platforms and launch platforms by label, typed from the vocabularies', async () => {
      const platforms = app.get(PlatformsService);
      const label = `R/V ${tag()}`;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          platforms.matchPlatform({
            label: i % 2 ? label.toLowerCase() : label,
            platform_type: 'auv',
            description: 'Research vessel',
          }),
        ),
      );
      expect(new Set(results.map((p) => p.id)).size).toBe(1);
      // Whichever call won stored its spelling.
      expect(results[0].label.toLowerCase()).toBe(label.toLowerCase());
      expect(results[0]).toMatchObject({ platformType: { label: 'AUV' }, description: 'Research vessel' });
      const badType = await apiErrorOf(
        platforms.matchPlatform({ label: tag(), platform_type: 'Spaceship' }, { field: 'platform' }),
      );
      expect(Object.keys((badType.body as { errors: object }).errors)).toEqual(['platform.platform_type']);

      const launch = await platforms.matchLaunchPlatform({ label: `Jason ${label}`, launch_type: 'rov' });
      const again = await platforms.matchLaunchPlatform({ label: `JASON ${label}` });
      expect(again.id).toBe(launch.id);
      expect(again.launchType?.label).toBe('ROV');
    });
  });

  describe('OpenAPI', () => {
    it('documents every reference-data path, with bearer auth on creates', async () => {
      const res = await http().get('/api/schema').expect(200);
      const paths = res.body.paths as Record<string, Record<string, { security?: unknown; responses: object }>>;
      for (const path of [
        '/api/countries',
        '/api/archives',
        '/api/institutions',
        '/api/institutions/{id}',
        '/api/individuals',
        '/api/individuals/{id}',
        '/api/agent-role-types',
        '/api/object-types',
        '/api/vocab/object-types',
        '/api/material-types',
        '/api/geologic-time-scales',
        '/api/location-methods',
        '/api/sampling-methods',
        '/api/platform-types',
        '/api/launch-types',
      ]) {
        expect(paths[path]?.get?.responses).toHaveProperty('200');
      }
      for (const path of ['/api/archives', '/api/institutions', '/api/individuals']) {
        expect(paths[path].post.security).toEqual([{ bearer: [] }]);
        expect(paths[path].post.responses).toHaveProperty('201');
        expect(paths[path].post.responses).toHaveProperty('400');
        expect(paths[path].post.responses).toHaveProperty('401');
      }
      const schemas = res.body.components.schemas as Record<string, { properties: Record<string, object> }>;
      expect(Object.keys(schemas.Archive.properties).sort()).toEqual(
        [
          'id',
          'label',
          'alt_label',
          'description',
          'country',
          'country_subdivision',
          'city',
          'url',
          'uri',
          'parent_institution',
          'can_edit',
          'created_by',
        ].sort(),
      );
      expect(schemas.ArchiveWrite.properties.label).toMatchObject({ maxLength: 200 });
      for (const name of ['ArchiveInput', 'CollectorInput', 'Country', 'ObjectType', 'GeologicTimeScale']) {
        expect(schemas[name]).toBeDefined();
      }
    });
  });
});
