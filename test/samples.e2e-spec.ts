import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { ManualClock, createRegistrant, createUserWithToken } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

describe('samples', () => {
  let app: INestApplication;
  const clock = new ManualClock();
  const http = () => request(app.getHttpServer());
  let owner: Registrant;

  beforeAll(async () => {
    app = await createTestApp({ clock });
    owner = await createRegistrant(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const register = (who: { auth: { Authorization: string } }, body: Record<string, unknown>) =>
    http().post('/api/samples/').set(who.auth).send(body);

  const minimal = (code: string, extra: Record<string, unknown> = {}) => ({
    registry_code: code,
    name: `sample-${randomUUID().slice(0, 8)}`,
    object_type: 'Individual sample',
    latitude: 41.5,
    longitude: -72.8,
    ...extra,
  });

  describe('register and fetch', () => {
    it('mints an IGSN and publishes; anyone can fetch it by DOI form, suffix or any case', async () => {
      const res = await register(owner, minimal(owner.code, { sesar_code: owner.code.toLowerCase() })).expect(201);
      const sample = res.body.data;
      expect(sample.igsn).toMatch(new RegExp(`^10\\.5072/${owner.code}[0-9A-Z]{4}$`));
      expect(sample).toMatchObject({
        registry_code: owner.code,
        object_type: 'Individual sample',
        metadata_store_status: 'published',
        is_draft: false,
        is_deactivated: false,
        latitude: 41.5,
        longitude: -72.8,
        user_owner: owner.userId,
        can_edit: true,
      });
      expect(sample.object_type_path).toContain('>');
      const suffix = sample.igsn.split('/')[1];
      for (const path of [sample.igsn, suffix, suffix.toLowerCase(), `10.5072/${suffix.toLowerCase()}`]) {
        const fetched = await http().get(`/api/samples/${path}/`).expect(200);
        expect(fetched.body.data).toEqual({ ...sample, can_edit: false, can_deactivate: false });
      }
    });

    it('mints consecutive base-36 suffixes: 200 parallel registrations get 200 distinct IGSNs', async () => {
      const registrant = await createRegistrant(app);
      const results = await Promise.all(
        Array.from({ length: 200 }, () => register(registrant, minimal(registrant.code))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(200).fill(201));
      const igsns = results.map((r) => r.body.data.igsn as string).sort();
      expect(new Set(igsns).size).toBe(200);
      expect(igsns[0]).toBe(`10.5072/${registrant.code}0001`);
      expect(igsns[34]).toBe(`10.5072/${registrant.code}000Z`);
      expect(igsns[35]).toBe(`10.5072/${registrant.code}0010`);
      expect(igsns[199]).toBe(`10.5072/${registrant.code}005K`);
    });

    const LIMITS: [string, number][] = [
      ['name', 255],
      ['province', 255],
      ['county', 255],
      ['city', 255],
      ['locality', 255],
      ['size', 255],
      ['external_parent_name', 255],
      ['external_parent_object_type', 255],
      ['geologic_age_verbatim', 255],
      ['geologic_unit', 255],
      ['launch_label', 255],
      ['numeric_age_unit', 20],
      ['field_name', 255],
      ['primary_location_name', 255],
      ['primary_location_type', 255],
      ['vertical_datum', 255],
      ['northing', 255],
      ['easting', 255],
      ['zone', 255],
      ['depth_scale', 255],
      ['size_unit', 255],
      ['cruise_field_prgrm', 255],
      ['current_archive_contact', 255],
      ['original_archive_contact', 255],
      ['sample_description', 20000],
      ['location_description', 20000],
      ['purpose', 20000],
      ['sampling_method_detail', 20000],
      ['platform.label', 255],
      ['launch_platform.label', 255],
      ['current_archive.label', 200],
      ['original_archive.label', 200],
      ['collectors.0.individual.label', 200],
      ['collectors.0.individual.fname', 100],
      ['collectors.0.institution.label', 200],
      ['other_names.0', 255],
      ['material_types.0', 255],
    ];

    it.each(LIMITS)('accepts %s at %i characters and refuses one more, naming the field', async (path, max) => {
      const body = (length: number): Record<string, unknown> => {
        const parts = path.split('.');
        // unique per run: archives and platforms are matched by label across suites
        const value = `${randomUUID()}${'x'.repeat(length)}`.slice(0, length);
        let leaf: unknown = value;
        for (const part of parts.slice(1).reverse()) leaf = /^\d+$/.test(part) ? [leaf] : { [part]: leaf };
        return minimal(owner.code, { [parts[0]]: leaf });
      };
      await register(owner, body(max)).expect(201);
      const res = await register(owner, body(max + 1)).expect(400);
      const expected = path.replace(/^(other_names|material_types)\.0$/, '$1');
      expect(Object.keys(res.body.errors)).toEqual([expected]);
    });

    it('stores nested collectors, platforms, archives and references', async () => {
      const body = minimal(owner.code, {
        general_material_type: 'rock',
        material_types: ['Igneous>Plutonic'],
        country: 'us',
        elevation: 120.5,
        elevation_unit: 'meters',
        other_names: ['Dredge 7'],
        collectors: [{ individual: { label: 'Marie Tharp' }, description: 'Chief scientist' }],
        platform: { label: 'R/V Test Vessel', platform_type: 'Ship' },
        launch_platform: { label: 'Alvin Test', launch_type: 'HOV' },
        current_archive: { label: 'Test Core Repository' },
        related_resources: [{ uri: 'https://doi.org/10.1594/X', relation_type: 'IsReferencedBy' }],
        sampling_start_date: '2024-06-01',
        sampling_end_date: '2024-06-03T12:00:00Z',
      });
      const res = await register(owner, body).expect(201);
      expect(res.body.data).toMatchObject({
        general_material_type: 'Rock',
        material_types: ['Igneous>Plutonic'],
        country: 'US',
        elevation: 120.5,
        other_names: ['Dredge 7'],
        collectors: [{ individual: { label: 'Marie Tharp' }, institution: null, description: 'Chief scientist' }],
        platform: { label: 'R/V Test Vessel', platform_type: 'Ship' },
        launch_platform: { label: 'Alvin Test', launch_type: 'HOV' },
        current_archive: { label: 'Test Core Repository' },
        original_archive: null,
        related_resources: [{ uri: 'https://doi.org/10.1594/X', description: null, relation_type: 'IsReferencedBy' }],
        sampling_start_date: '2024-06-01T00:00:00.000Z',
        sampling_end_date: '2024-06-03T12:00:00.000Z',
      });
      // the same archive named again (other case, spaces) is matched, not duplicated
      const again = await register(
        owner,
        minimal(owner.code, { current_archive: { label: '  test core REPOSITORY ' } }),
      );
      expect(again.body.data.current_archive.id).toBe(res.body.data.current_archive.id);
    });

    it('needs name, object type and coordinates to publish; a draft may omit coordinates', async () => {
      const res = await register(owner, { registry_code: owner.code, object_type: 'Core' }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['name']);
      const noCoordinates = await register(owner, { registry_code: owner.code, name: 'x', object_type: 'Core' }).expect(
        400,
      );
      expect(noCoordinates.body.errors).toEqual({
        latitude: ['is required to publish a sample'],
        longitude: ['is required to publish a sample'],
      });
      const draft = await register(owner, {
        registry_code: owner.code,
        name: 'x',
        object_type: 'Core',
        is_draft: true,
      });
      expect(draft.status).toBe(201);
      expect(draft.body.data).toMatchObject({ is_draft: true, metadata_store_status: 'draft', latitude: null });
    });

    it.each([
      [{ latitude: 90.5 }, 'latitude'],
      [{ longitude: -181 }, 'longitude'],
      // Issue 20: a decimal string is a number now ("12" is accepted); any other text is still refused.
      [{ latitude: '12 N' }, 'latitude'],
      [{ object_type: 17 }, 'object_type'],
      [{ object_type: '17' }, 'object_type'],
      [{ object_type: 'Not a type' }, 'object_type'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ elevation_unit: 'yards' }, 'elevation_unit'],
      [{ country: 'Atlantis' }, 'country'],
      [{ collectors: [{ individual: { label: 'x'.repeat(201) } }] }, 'collectors.0.individual.label'],
      [{ related_resources: [{ uri: 'not a url' }] }, 'related_resources.0.uri'],
      [{ numeric_age_min: 10, numeric_age_max: 5 }, 'numeric_age_max'],
      [{ colour: 'red' }, 'colour'],
    ])('refuses %j naming %s, storing nothing', async (override, field) => {
      const before = await http().get('/api/samples/?page_size=1').set(owner.auth).expect(200);
      const res = await register(owner, minimal(owner.code, override)).expect(400);
      expect(Object.keys(res.body.errors)).toContain(field);
      const after = await http().get('/api/samples/?page_size=1').set(owner.auth).expect(200);
      expect(after.body.count).toBe(before.body.count);
    });

    it('explains that numeric object type ids are not accepted', async () => {
      const res = await register(owner, minimal(owner.code, { object_type: 17 })).expect(400);
      expect(res.body.errors.object_type[0]).toMatch(/leaf label/);
    });

    it('checks a supplied IGSN: format, namespace and uniqueness', async () => {
      const igsn = `${owner.code}X${randomUUID().slice(0, 6).toUpperCase()}`;
      const created = await register(owner, minimal(owner.code, { igsn: `10.5072/${igsn.toLowerCase()}` })).expect(201);
      expect(created.body.data.igsn).toBe(`10.5072/${igsn}`);
      const duplicate = await register(owner, minimal(owner.code, { igsn })).expect(409);
      expect(duplicate.body.errors).toEqual({ igsn: ['already registered'] });
      await register(owner, minimal(owner.code, { igsn: 'IEZZZ00001' })).expect(400);
      await register(owner, minimal(owner.code, { igsn: 'short' })).expect(400);
      await register(owner, minimal(owner.code, { igsn: '10.9999/' + igsn })).expect(400);
    });

    it('registers only under codes the caller may use', async () => {
      const stranger = await createRegistrant(app);
      const res = await register(stranger, minimal(owner.code)).expect(403);
      expect(res.body.message).toBe(`You may not register samples under registry code ${owner.code}.`);
      await register(stranger, minimal('IE$$$')).expect(400);
      // with exactly one usable code the code may be omitted
      const { registry_code: _omitted, ...body } = minimal(stranger.code);
      expect((await register(stranger, body).expect(201)).body.data.registry_code).toBe(stranger.code);
      const noUpload = await createUserWithToken(app, { uploadPermission: false });
      await register(noUpload, minimal(owner.code)).expect(403);
      await http().post('/api/samples/').send(minimal(owner.code)).expect(401);
    });
  });

  describe('visibility (specification part 3)', () => {
    it('hides drafts from the public (401) and from strangers (404)', async () => {
      const draft = (await register(owner, { ...minimal(owner.code), is_draft: true }).expect(201)).body.data;
      await http().get(`/api/samples/${draft.igsn}/`).expect(401);
      const stranger = await createUserWithToken(app);
      await http().get(`/api/samples/${draft.igsn}/`).set(stranger.auth).expect(404);
      await http().get(`/api/samples/${draft.igsn}/`).set(owner.auth).expect(200);
      const staff = await createUserWithToken(app, { isStaff: true });
      expect((await http().get(`/api/samples/${draft.igsn}/`).set(staff.auth).expect(200)).body.data.can_edit).toBe(
        true,
      );
      await http().get('/api/samples/10.5072/IENOPE0001/').expect(404);
    });

    it('embargoes a published sample until its publish_date', async () => {
      const later = new Date(clock.now().getTime() + 86400_000).toISOString();
      const sample = (await register(owner, minimal(owner.code, { publish_date: later })).expect(201)).body.data;
      await http().get(`/api/samples/${sample.igsn}/`).expect(401);
      const publicSearch = await http().get(`/api/samples/?igsn=${sample.igsn}`).expect(200);
      expect(publicSearch.body.count).toBe(0);
      clock.advance(86401);
      try {
        await http().get(`/api/samples/${sample.igsn}/`).expect(200);
        expect((await http().get(`/api/samples/?igsn=${sample.igsn}`).expect(200)).body.count).toBe(1);
      } finally {
        clock.advance(-86401);
      }
    });

    it('gives team members view, and editors and managers edit', async () => {
      const accounts = app.get(AccountsService);
      const team = `team-${randomUUID().slice(0, 8)}`;
      await accounts.createTeam(team);
      const lead = await createUserWithToken(app);
      const viewer = await createUserWithToken(app);
      const editor = await createUserWithToken(app);
      await accounts.addTeamMember(team, lead.email, 'manager');
      await accounts.addTeamMember(team, viewer.email, 'viewer');
      await accounts.addTeamMember(team, editor.email, 'editor');
      const code = `IE${randomUUID()
        .replace(/[^0-9a-f]/g, '')
        .slice(0, 3)
        .toUpperCase()}`;
      await accounts.createRegistryCode(code, { team });
      const draft = (await register(lead, { ...minimal(code), is_draft: true }).expect(201)).body.data;
      expect(draft.team_owner).toEqual(expect.any(Number));

      expect((await http().get(`/api/samples/${draft.igsn}/`).set(viewer.auth).expect(200)).body.data.can_edit).toBe(
        false,
      );
      await http().patch(`/api/samples/${draft.igsn}/`).set(viewer.auth).send({ name: 'nope' }).expect(403);
      await http().patch(`/api/samples/${draft.igsn}/`).set(editor.auth).send({ name: 'edited' }).expect(200);
      await register(viewer, minimal(code)).expect(403);
      await register(editor, minimal(code)).expect(201);

      const shared = await http().get('/api/samples/?scope=shared').set(viewer.auth).expect(200);
      expect(shared.body.data.map((s: { igsn: string }) => s.igsn)).toContain(draft.igsn);
    });
  });

  describe('update', () => {
    it('changes the fields sent, replaces lists and ignores read-only fields sent back', async () => {
      const created = (
        await register(
          owner,
          minimal(owner.code, { other_names: ['a', 'b'], collectors: [{ individual: { label: 'One' } }] }),
        )
      ).body.data;
      const res = await http()
        .patch(`/api/samples/${created.igsn}`)
        .set(owner.auth)
        .send({ ...created, name: 'renamed', other_names: ['c'], collectors: [{ individual: { label: 'Two' } }] })
        .expect(200);
      expect(res.body.data).toMatchObject({ name: 'renamed', other_names: ['c'], latitude: 41.5 });
      expect(res.body.data.collectors.map((c: { individual: { label: string } }) => c.individual.label)).toEqual([
        'Two',
      ]);
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    });

    it('refuses to change the IGSN or registry code, or clear set coordinates', async () => {
      const created = (await register(owner, minimal(owner.code))).body.data;
      const path = `/api/samples/${created.igsn}/`;
      expect(
        (
          await http()
            .patch(path)
            .set(owner.auth)
            .send({ igsn: `${owner.code}ZZZZZ` })
            .expect(400)
        ).body.errors,
      ).toEqual({
        igsn: ['cannot be changed'],
      });
      await http().patch(path).set(owner.auth).send({ registry_code: 'IEZZZ' }).expect(400);
      const cleared = await http().patch(path).set(owner.auth).send({ latitude: null }).expect(400);
      expect(cleared.body.errors).toEqual({ latitude: ['cannot be cleared once set'] });
      const fetched = await http().get(path).expect(200);
      expect(fetched.body.data.latitude).toBe(41.5);
    });

    it('publishes a draft with is_draft false once it has coordinates', async () => {
      const draft = (
        await register(owner, { registry_code: owner.code, name: 'd', object_type: 'Core', is_draft: true })
      ).body.data;
      const path = `/api/samples/${draft.igsn}/`;
      const refused = await http().patch(path).set(owner.auth).send({ is_draft: false }).expect(400);
      expect(Object.keys(refused.body.errors).sort()).toEqual(['latitude', 'longitude']);
      const published = await http().patch(path).set(owner.auth).send({ is_draft: false, latitude: 1, longitude: 2 });
      expect(published.status).toBe(200);
      expect(published.body.data).toMatchObject({ is_draft: false, metadata_store_status: 'published' });
      await http().get(path).expect(200);
    });

    it('answers 404 to a stranger and 401 without a token', async () => {
      const created = (await register(owner, minimal(owner.code))).body.data;
      const stranger = await createUserWithToken(app);
      await http().patch(`/api/samples/${created.igsn}/`).set(stranger.auth).send({ name: 'x' }).expect(403);
      const draft = (await register(owner, { ...minimal(owner.code), is_draft: true })).body.data;
      await http().patch(`/api/samples/${draft.igsn}/`).set(stranger.auth).send({ name: 'x' }).expect(404);
      await http().patch(`/api/samples/${created.igsn}/`).send({ name: 'x' }).expect(401);
    });
  });

  describe('deactivate', () => {
    it('refuses an unknown reason listing the allowed values, then hides the sample for good', async () => {
      const created = (await register(owner, minimal(owner.code))).body.data;
      const path = `/api/samples/${created.igsn}/deactivate/`;
      const bad = await http().post(path).set(owner.auth).send({ reason: 'because' }).expect(400);
      expect(bad.body.errors.reason[0]).toBe(
        'reason must be one of: this was a test sample; this sample does not exist; duplicate igsn; other',
      );
      const stranger = await createUserWithToken(app);
      await http().post(path).set(stranger.auth).send({ reason: 'other' }).expect(403);
      const res = await http()
        .post(path)
        .set(owner.auth)
        .send({ reason: 'duplicate igsn', comment: 'oops' })
        .expect(200);
      expect(res.body.data).toMatchObject({ is_deactivated: true, deactivate_reason: 'duplicate igsn' });
      // Issue 20: a public sample, once deactivated, is gone (410 with a tombstone), never its fields.
      const gone = await http().get(`/api/samples/${created.igsn}/`).expect(410);
      expect(gone.body).toEqual({
        message: `Sample ${created.igsn} was deactivated.`,
        errors: {},
        tombstone: {
          igsn: created.igsn,
          deactivation_date: expect.any(String),
          deactivate_reason: 'duplicate igsn',
          duplicate_igsns: [],
        },
      });
      await http().get(`/api/samples/${created.igsn}/`).set(owner.auth).expect(410);
      const search = await http().get(`/api/samples/?igsn=${created.igsn}&scope=personal`).set(owner.auth).expect(200);
      expect(search.body.count).toBe(0);
    });
  });

  describe('search (specification part 4)', () => {
    let searcher: Registrant;
    let published: { igsn: string; name: string }[];
    let draft: { igsn: string };
    const tag = randomUUID().slice(0, 6);

    beforeAll(async () => {
      searcher = await createRegistrant(app);
      published = [];
      for (const [i, extra] of [
        { object_type: 'Core', country: 'US' },
        { object_type: 'Individual sample', country: 'CA' },
        { object_type: 'Core', country: 'FR' },
      ].entries()) {
        published.push(
          (await register(searcher, minimal(searcher.code, { ...extra, name: `${tag}-basalt-${i}` })).expect(201)).body
            .data,
        );
      }
      draft = (await register(searcher, { ...minimal(searcher.code, { name: `${tag}-draft` }), is_draft: true })).body
        .data;
    });

    const names = (res: request.Response): string[] => res.body.data.map((s: { name: string }) => s.name) as string[];

    it('shows anonymous callers public samples only, newest first', async () => {
      const res = await http().get(`/api/samples/?q=${tag}`).expect(200);
      expect(names(res)).toEqual([`${tag}-basalt-2`, `${tag}-basalt-1`, `${tag}-basalt-0`]);
      expect(res.body).toMatchObject({
        count: 3,
        current_page: 1,
        total_pages: 1,
        page_size: 25,
        next: null,
        previous: null,
      });
    });

    it('defaults to the personal scope with a token, drafts included', async () => {
      const res = await http().get(`/api/samples/?q=${tag}`).set(searcher.auth).expect(200);
      expect(res.body.count).toBe(4);
      const drafts = await http().get(`/api/samples/?q=${tag}&is_draft=true`).set(searcher.auth).expect(200);
      expect(drafts.body.data.map((s: { igsn: string }) => s.igsn)).toEqual([draft.igsn]);
      const other = await createUserWithToken(app);
      expect((await http().get(`/api/samples/?q=${tag}`).set(other.auth).expect(200)).body.count).toBe(0);
      expect((await http().get(`/api/samples/?q=${tag}&scope=public`).set(other.auth).expect(200)).body.count).toBe(3);
    });

    it('filters by name, igsn, object type list and country list', async () => {
      expect(names(await http().get(`/api/samples/?name=${tag}-BASALT-1`).expect(200))).toEqual([`${tag}-basalt-1`]);
      const byIgsn = await http()
        .get(`/api/samples/?igsn=${published[0].igsn.split('/')[1].toLowerCase()}`)
        .expect(200);
      expect(names(byIgsn)).toEqual([`${tag}-basalt-0`]);
      const byQ = await http().get(`/api/samples/?q=${published[2].igsn}`).expect(200);
      expect(names(byQ)).toEqual([`${tag}-basalt-2`]);
      expect(names(await http().get(`/api/samples/?q=${tag}&object_type=core`).expect(200))).toEqual([
        `${tag}-basalt-2`,
        `${tag}-basalt-0`,
      ]);
      expect(names(await http().get(`/api/samples/?q=${tag}&country=ca,fr`).expect(200))).toEqual([
        `${tag}-basalt-2`,
        `${tag}-basalt-1`,
      ]);
      expect((await http().get('/api/samples/?q=%25_%5C').expect(200)).body.count).toBe(0);
    });

    it('paginates with absolute next and previous links', async () => {
      const first = await http().get(`/api/samples/?q=${tag}&page_size=2`).expect(200);
      expect(first.body).toMatchObject({ count: 3, total_pages: 2, current_page: 1, page_size: 2, previous: null });
      expect(first.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/samples\/\?q=.*page_size=2&page=2$/);
      const second = await http()
        .get(new URL(first.body.next).pathname + new URL(first.body.next).search)
        .expect(200);
      expect(names(second)).toEqual([`${tag}-basalt-0`]);
      expect(second.body.previous).toMatch(/page=1$/);
      expect(second.body.next).toBeNull();
    });

    it.each([
      ['page_size=2001', 'page_size'],
      ['page_size=0', 'page_size'],
      ['page=abc', 'page'],
      ['scope=everything', 'scope'],
      ['is_draft=maybe', 'is_draft'],
      ['object_type=Nope', 'object_type'],
      ['object_type=12', 'object_type'],
      ['country=USA', 'country'],
      ['country=ZZ', 'country'],
    ])('answers 400 naming the parameter for %s', async (query, parameter) => {
      const res = await http().get(`/api/samples/?${query}`).expect(400);
      expect(Object.keys(res.body.errors)).toEqual([parameter]);
    });

    it('needs a token for the personal scopes', async () => {
      await http().get('/api/samples/?scope=personal').expect(401);
    });
  });
});

describe('pagination behind a proxy', () => {
  it('builds next links from X-Forwarded-Proto and X-Forwarded-Host when TRUST_PROXY is set', async () => {
    const app = await createTestApp({ config: testConfig({ TRUST_PROXY: 'true' }) });
    try {
      const owner = await createRegistrant(app);
      for (let i = 0; i < 2; i++) {
        await request(app.getHttpServer())
          .post('/api/samples/')
          .set(owner.auth)
          .send({ registry_code: owner.code, name: `p${i}`, object_type: 'Core', latitude: 1, longitude: 1 })
          .expect(201);
      }
      const res = await request(app.getHttpServer())
        .get('/api/samples/?page_size=1')
        .set(owner.auth)
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'registry.example.org')
        .expect(200);
      expect(res.body.next).toBe('https://registry.example.org/api/samples/?page_size=1&page=2');
    } finally {
      await app.close();
    }
  });
});
