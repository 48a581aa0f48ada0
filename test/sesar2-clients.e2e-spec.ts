import { INestApplication } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { ConnectionService } from '../src/modules/auth/connection.service';
import { TestUser, createFreshRegistryCode, createRegistrant, createUserWithToken } from './support/auth';
import { FakeIdentity, FakeOpenIdProvider, randomOrcid } from './support/fake-openid-provider';
import {
  LEGACY_ENDPOINTS,
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
  readLegacyResults,
} from './support/legacy-xml-client';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

type Registrant = TestUser & { code: string };

/** The DOI prefix of an institution migrating from SESAR: lookups by its DOIs must find samples here. */
const SESAR_PREFIX = '10.58052';

/**
 * Issue 20 §2–§5: a client written against SESAR2's API, pointed at this registry, reads, looks up,
 * deactivates and signs in as it would there.
 */
describe('SESAR2 clients: reads, vocabularies, deactivation and sign-in', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  const provider = new FakeOpenIdProvider();
  let connection: string;
  let owner: Registrant;
  let stranger: TestUser;

  beforeAll(async () => {
    await provider.start();
    // The fake provider is an ORCID issuer: its `sub` is an ORCID iD, matched to the account's.
    app = await createTestApp({
      config: testConfig({ IGSN_DOI_PREFIXES: `10.5072,${SESAR_PREFIX}`, ORCID_ID_TOKEN_ISSUERS: provider.issuer }),
    });
    connection = `sesar2-${randomUUID().slice(0, 8)}`;
    await app.get(ConnectionService).create({
      name: connection,
      issuer: provider.issuer,
      audience: provider.clientId,
      jwksUrl: `${provider.issuer}/oauth/jwks`,
    });
    owner = await createRegistrant(app);
    stranger = await createUserWithToken(app);
  });

  afterAll(async () => {
    await app.close();
    await provider.stop();
  });

  /** An id_token for `identity`, through the provider's authorization-code flow as a client gets one. */
  async function idTokenFor(identity: FakeIdentity): Promise<string> {
    provider.nextIdentity = identity;
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = 'http://127.0.0.1/callback';
    const decide = await fetch(`${provider.issuer}/oauth/decide`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({
        client_id: provider.clientId,
        redirect_uri: redirectUri,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        decision: 'authorize',
      }),
    });
    const code = new URL(decide.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const token = await fetch(`${provider.issuer}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    return ((await token.json()) as { id_token: string }).id_token;
  }

  const exchange = async (identity: FakeIdentity, status: number) =>
    http()
      .post(`/api/auth/token/${connection}/`)
      .send({ token: await idTokenFor(identity) })
      .expect(status);

  const register = (who: { auth: { Authorization: string } }, body: Record<string, unknown>) =>
    http().post('/api/samples/').set(who.auth).send(body);

  const minimal = (code: string, extra: Record<string, unknown> = {}) => ({
    sesar_code: code,
    name: `sesar2-${randomUUID().slice(0, 8)}`,
    object_type: 'Core',
    latitude: 38.957178,
    longitude: -76.54,
    ...extra,
  });

  const suffixOf = (igsn: string) => igsn.split('/')[1];

  it('plays a whole session: sign in, codes, vocabularies, register, look up, PATCH, link, deactivate, 410', async () => {
    const orcid = randomOrcid();
    const researcher = await createUserWithToken(app, { orcid });
    const code = await createFreshRegistryCode(app.get(AccountsService), { email: researcher.email });

    const pair = (await exchange({ sub: orcid }, 200)).body.data;
    const auth = { Authorization: `Bearer ${pair.access}` };

    const codes = await http().get('/api/sesar-codes/by-permission/?permission=create_sample').set(auth).expect(200);
    expect(codes.body.data).toEqual([
      {
        code,
        sesar_code: code,
        role: 'owner',
        team: null,
        permissions: ['create_sample', 'edit_sample', 'view_sample'],
      },
    ]);

    const materials = await http().get('/api/vocab/material-types/').expect(200);
    expect(materials.body).toEqual((await http().get('/api/material-types/').expect(200)).body);
    const rock = materials.body.data.find((term: { label: string }) => term.label === 'Rock');
    expect(rock).toMatchObject({ for_registration: true });
    const objectTypes = (await http().get('/api/vocab/object-types/').expect(200)).body.data as { label: string }[];
    expect(objectTypes.map((term) => term.label)).toContain('Core');

    // As DRF clients send them: numbers as decimal strings, the client's own id for the sample.
    const externalId = `FIELD-${randomUUID().slice(0, 8)}`;
    const created = await register(
      { auth },
      minimal(code, {
        general_material_type: 'Rock',
        latitude: '38.957178',
        longitude: '-76.54',
        elevation: '12.5',
        external_sample_id: externalId,
      }),
    ).expect(201);
    const sample = created.body.data;
    expect(sample).toMatchObject({ latitude: 38.957178, longitude: -76.54, elevation: 12.5 });
    expect(sample.external_sample_id).toBe(externalId);
    // The client's answer got lost and it registers again: 409 naming the sample it already has.
    const twin = await register({ auth }, minimal(code, { external_sample_id: externalId })).expect(409);
    expect(twin.body.errors.external_sample_id[0]).toContain(sample.igsn);
    const byExternalId = await http().get(`/api/samples/?external_sample_id=${externalId}`).set(auth).expect(200);
    expect(byExternalId.body.data.map((row: { igsn: string }) => row.igsn)).toEqual([sample.igsn]);
    expect(sample).toMatchObject({
      sample_id: sample.id,
      registration_date: sample.created_at,
      last_update_date: sample.updated_at,
      can_edit: true,
      can_deactivate: true,
      registry_code: code,
    });

    const found = await http()
      .get(`/api/samples/?search=${sample.name}&sesar_code=${code.toLowerCase()}&ordering=-igsn`)
      .set(auth)
      .expect(200);
    expect(found.body.data.map((row: { igsn: string }) => row.igsn)).toEqual([sample.igsn]);

    const anonymous = await http()
      .get(`/api/samples/by-igsn/?igsn=${suffixOf(sample.igsn).toLowerCase()}`)
      .expect(200);
    expect(anonymous.body.data).toMatchObject({ igsn: sample.igsn, can_edit: false, can_deactivate: false });

    const patched = await http()
      .patch(`/api/samples/${sample.igsn}/`)
      .set(auth)
      .send({ ...sample, other_names: ['core A', 'core B'] })
      .expect(200);
    expect(patched.body.data.other_names).toEqual(['core A', 'core B']);

    const resource = (
      await http()
        .post('/api/related-resources/')
        .set(auth)
        .send({
          label: `Cruise report ${externalId}`,
          related_resource_type: 'text',
          uri: 'https://example.org/report',
        })
        .expect(201)
    ).body.data as { id: number };
    await http()
      .post(`/api/related-resources/${resource.id}/link-samples/`)
      .set(auth)
      .send({ sample_ids: [sample.id] })
      .expect(200);
    const linked = (await http().get(`/api/samples/${sample.igsn}/`).expect(200)).body.data;
    expect(linked.related_resources).toEqual([
      expect.objectContaining({ id: resource.id, uri: 'https://example.org/report', relation_type: 'IsReferencedBy' }),
    ]);

    const deactivated = await http()
      .post(`/api/samples/${sample.igsn}/deactivate/`)
      .set(auth)
      .send({ deactivate_reason: 'other', other_reason: 'Lost in transit.' })
      .expect(200);
    expect(deactivated.body.data).toMatchObject({ is_deactivated: true, deactivate_reason: 'other' });

    const tombstone = {
      igsn: sample.igsn,
      deactivation_date: expect.any(String),
      deactivate_reason: 'other',
      duplicate_igsns: [],
    };
    for (const path of [`/api/samples/${sample.igsn}/`, `/api/samples/by-igsn/?igsn=${sample.igsn}`]) {
      const gone = await http().get(path).expect(410);
      expect(gone.body).toEqual({ message: `Sample ${sample.igsn} was deactivated.`, errors: {}, tombstone });
      expect(JSON.stringify(gone.body)).not.toContain(sample.name);
    }
  });

  describe('sign-in answers clients branch on', () => {
    it('answers 401 with errors.token for an identity without an account', async () => {
      const res = await exchange({ sub: randomOrcid() }, 401);
      expect(res.body).toEqual({
        message: 'No registry account matches this identity.',
        errors: { token: [expect.stringContaining('no registry account')] },
      });
    });

    it('answers 403 with errors.permissions without upload permission; an approved access request lets it in', async () => {
      const orcid = randomOrcid();
      const researcher = await createUserWithToken(app, { orcid, uploadPermission: false });
      const refused = await exchange({ sub: orcid }, 403);
      expect(refused.body).toEqual({
        message: 'This account has no upload permission.',
        errors: { permissions: [expect.stringContaining('/api/api-access-request/')] },
      });

      const asked = await http()
        .post('/api/api-access-request/')
        .set(researcher.auth)
        .send({ reason: 'Field cores.' })
        .expect(201);
      const curator = await createUserWithToken(app, { isStaff: true });
      await http().post(`/api/access-requests/${asked.body.data.id}/approve/`).set(curator.auth).send({}).expect(200);
      await exchange({ sub: orcid }, 200);
    });
  });

  describe('registry codes', () => {
    it('lists my codes with my role, and by permission the codes each permission covers', async () => {
      const me = await createRegistrant(app);
      const accounts = app.get(AccountsService);
      const teams = [`viewers-${randomUUID().slice(0, 8)}`, `editors-${randomUUID().slice(0, 8)}`];
      const teamCodes: string[] = [];
      for (const [index, team] of teams.entries()) {
        await accounts.createTeam(team);
        await accounts.addTeamMember(team, me.email, index === 0 ? 'viewer' : 'editor');
        teamCodes.push(await createFreshRegistryCode(accounts, { team }));
      }
      const mine = (await http().get('/api/registry-codes/').set(me.auth).expect(200)).body.data as {
        code: string;
        role: string;
        team: { name: string } | null;
      }[];
      const roleOf = new Map(mine.map((row) => [row.code, row.role]));
      expect(roleOf).toEqual(
        new Map([
          [me.code, 'owner'],
          [teamCodes[0], 'viewer'],
          [teamCodes[1], 'editor'],
        ]),
      );
      expect(mine.find((row) => row.code === teamCodes[0])?.team?.name).toBe(teams[0]);

      const codes = async (permission: string) =>
        (
          (await http().get(`/api/sesar-codes/by-permission/?permission=${permission}`).set(me.auth).expect(200)).body
            .data as { code: string; sesar_code: string }[]
        ).map((row) => row.sesar_code);
      expect(new Set(await codes('create_sample'))).toEqual(new Set([me.code, teamCodes[1]]));
      expect(new Set(await codes('edit_sample'))).toEqual(new Set([me.code, teamCodes[1]]));
      expect(new Set(await codes('view_sample'))).toEqual(new Set([me.code, ...teamCodes]));

      for (const query of ['', '?permission=delete_sample', '?permission=view_sample&colour=red']) {
        const res = await http().get(`/api/sesar-codes/by-permission/${query}`).set(me.auth).expect(400);
        expect(Object.keys(res.body.errors).length).toBeGreaterThan(0);
      }
      await http().get('/api/registry-codes/').expect(401);
    });
  });

  describe('vocabularies', () => {
    it('serves every vocabulary under /api/vocab/<name>/ with the same body', async () => {
      for (const name of [
        'object-types',
        'material-types',
        'sampling-methods',
        'location-methods',
        'platform-types',
        'launch-types',
        'countries',
        'geologic-time-scales',
        'agent-role-types',
      ]) {
        const ours = await http().get(`/api/${name}/?search=a`).expect(200);
        const theirs = await http().get(`/api/vocab/${name}/?search=a`).expect(200);
        expect([name, theirs.body]).toEqual([name, ours.body]);
      }
    });

    it('refuses a deprecated material type in new JSON writes, naming the field and the list; legacy XML and held values pass', async () => {
      const materials = (await http().get('/api/vocab/material-types/').expect(200)).body.data as {
        label: string;
        for_registration: boolean;
      }[];
      const retired = materials.filter((term) => !term.for_registration).map((term) => term.label);
      expect(retired.sort()).toEqual(['Liquid>aqueous', 'Liquid>organic']);

      const general = await register(owner, minimal(owner.code, { general_material_type: 'liquid>aqueous' })).expect(
        400,
      );
      expect(general.body.errors.general_material_type[0]).toContain('GET /api/vocab/material-types/');
      const listed = await register(owner, minimal(owner.code, { material_types: ['Rock', 'Liquid>organic'] })).expect(
        400,
      );
      expect(Object.keys(listed.body.errors)).toEqual(['material_types']);

      const sample = (await register(owner, minimal(owner.code, { general_material_type: 'Rock' })).expect(201)).body
        .data;
      await http()
        .patch(`/api/samples/${sample.igsn}/`)
        .set(owner.auth)
        .send({ general_material_type: 'Liquid>aqueous' })
        .expect(400);

      // Legacy XML still names the SESAR 1.0 terms; the sample it makes may be sent back as fetched.
      const name = `legacy-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        minimalLegacySample(owner.code, name, '<material>Liquid&gt;aqueous</material>'),
      );
      const saved = await readLegacyResults(
        (await postLegacyXml(app, LEGACY_ENDPOINTS.upload, xml, { headers: owner.auth })).text,
      );
      const igsn = saved.samples[0].igsn as string;
      const migrated = (await http().get(`/api/samples/${igsn}/`).set(owner.auth).expect(200)).body.data;
      expect(migrated.general_material_type).toBe('Liquid>aqueous');
      await http()
        .patch(`/api/samples/${igsn}/`)
        .set(owner.auth)
        .send({ ...migrated, name: `${name}-2` })
        .expect(200);
      await http()
        .patch(`/api/samples/${igsn}/`)
        .set(owner.auth)
        .send({ material_types: ['Liquid>organic'] })
        .expect(400);
    });
  });

  describe('search parameters', () => {
    const tag = randomUUID().slice(0, 8);
    const names = ['delta', 'alpha', 'echo', 'charlie', 'bravo'].map((word) => `${tag}-${word}`);
    let registered: { igsn: string; name: string; id: number }[];

    beforeAll(async () => {
      registered = [];
      for (const name of names)
        registered.push((await register(owner, minimal(owner.code, { name })).expect(201)).body.data);
    });

    const list = (query: string) => http().get(`/api/samples/?q=${tag}&${query}`).set(owner.auth);

    it('orders by each ordering, pages without overlap, and refuses an unknown one', async () => {
      const byName = [...names].sort();
      const pages: string[] = [];
      for (const page of [1, 2, 3]) {
        const res = await list(`ordering=name&page_size=2&page=${page}`).expect(200);
        pages.push(...res.body.data.map((row: { name: string }) => row.name));
      }
      expect(pages).toEqual(byName);
      const descending = await list('ordering=-name').expect(200);
      expect(descending.body.data.map((row: { name: string }) => row.name)).toEqual([...byName].reverse());
      const igsns = registered.map((row) => row.igsn).sort();
      expect((await list('ordering=igsn').expect(200)).body.data.map((row: { igsn: string }) => row.igsn)).toEqual(
        igsns,
      );
      const ids = registered.map((row) => row.id);
      for (const [ordering, expected] of [
        ['id', ids],
        ['-id', [...ids].reverse()],
        ['registration_date', ids],
        ['-created_at', [...ids].reverse()],
        ['last_update_date', ids],
      ] as const) {
        const res = await list(`ordering=${ordering}`).expect(200);
        expect([ordering, res.body.data.map((row: { id: number }) => row.id)]).toEqual([ordering, expected]);
      }
      const bad = await list('ordering=colour').expect(400);
      expect(Object.keys(bad.body.errors)).toEqual(['ordering']);
    });

    it('takes search and sesar_code for q and registry_code; unknown parameters stay a 400', async () => {
      const res = await http()
        .get(`/api/samples/?search=${tag}&sesar_code=${owner.code}&page_size=10`)
        .set(owner.auth)
        .expect(200);
      expect(res.body.count).toBe(names.length);
      const both = await http().get(`/api/samples/?search=${tag}&q=other`).set(owner.auth).expect(400);
      expect(Object.keys(both.body.errors).sort()).toEqual(['q', 'search']);
      const unknown = await http().get(`/api/samples/?search=${tag}&registry=${owner.code}`).expect(400);
      expect(Object.keys(unknown.body.errors)).toEqual(['registry']);
    });
  });

  describe('lookup by IGSN', () => {
    it('answers 200, 401, 403, 404 and 410 as a lookup of one, and each status in a lookup of several', async () => {
      const published = (await register(owner, minimal(owner.code)).expect(201)).body.data;
      const draft = (await register(owner, minimal(owner.code, { is_draft: true })).expect(201)).body.data;
      const retired = (await register(owner, minimal(owner.code)).expect(201)).body.data;
      await http()
        .post(`/api/samples/${retired.igsn}/deactivate/`)
        .set(owner.auth)
        .send({ deactivate_reason: 'duplicate igsn', duplicate_igsns: [suffixOf(published.igsn).toLowerCase()] })
        .expect(200);
      const unknown = `${owner.code}ZZZZ`;
      const lookup = (igsn: string) => http().get(`/api/samples/by-igsn/?igsn=${encodeURIComponent(igsn)}`);

      await lookup(`${SESAR_PREFIX}/${suffixOf(published.igsn)}`).expect(200);
      await lookup(`10.9999/${suffixOf(published.igsn)}`).expect(404);
      await lookup(draft.igsn).expect(401);
      const hidden = await lookup(draft.igsn).set(stranger.auth).expect(403);
      expect(hidden.body).toEqual({ message: 'You may not see this sample.', errors: {} });
      await lookup(draft.igsn).set(owner.auth).expect(200);
      await lookup(unknown).expect(404);
      const gone = await lookup(retired.igsn).expect(410);
      expect(gone.body.tombstone).toMatchObject({
        deactivate_reason: 'duplicate igsn',
        duplicate_igsns: [published.igsn],
      });

      const several = await lookup([published.igsn, draft.igsn, unknown, retired.igsn].join(','))
        .set(stranger.auth)
        .expect(200);
      expect(several.body.data.map((row: { igsn: string; status: number }) => [row.igsn, row.status])).toEqual([
        [published.igsn, 200],
        [draft.igsn, 403],
        [unknown, 404],
        [retired.igsn, 410],
      ]);
      expect(several.body.data[0].data.igsn).toBe(published.igsn);
      expect(several.body.data[3].tombstone.igsn).toBe(retired.igsn);

      for (const query of ['', '?igsn=', '?igsn=a&colour=red', `?igsn=${Array(101).fill(unknown).join(',')}`]) {
        await http().get(`/api/samples/by-igsn/${query}`).expect(400);
      }
    });

    it('keeps a draft deactivated before it was ever public unknown to strangers, on both lookups and its landing page', async () => {
      const draft = (await register(owner, minimal(owner.code, { is_draft: true })).expect(201)).body.data;
      await http().post(`/api/samples/${draft.igsn}/deactivate/`).set(owner.auth).send({ reason: 'other' }).expect(200);
      await http().get(`/api/samples/${draft.igsn}/`).expect(404);
      await http().get(`/api/samples/${draft.igsn}/`).set(stranger.auth).expect(404);
      await http().get(`/api/samples/by-igsn/?igsn=${draft.igsn}`).set(stranger.auth).expect(404);
      await http().get(`/api/samples/${draft.igsn}/`).set(owner.auth).expect(410);
      await http().get(`/api/samples/by-igsn/?igsn=${draft.igsn}`).set(owner.auth).expect(410);
      const page = await http()
        .get(`/samples/${suffixOf(draft.igsn)}`)
        .expect(404);
      expect(page.text).toContain('<h1>Sample not found</h1>');
    });
  });

  describe('deactivation in SESAR2 shape', () => {
    it('requires other_reason for other and existing duplicate_igsns for duplicate igsn; our shape is unchanged', async () => {
      const sample = (await register(owner, minimal(owner.code)).expect(201)).body.data;
      const path = `/api/samples/${sample.igsn}/deactivate/`;
      const refused = async (body: object, field: string) => {
        const res = await http().post(path).set(owner.auth).send(body).expect(400);
        expect([field, Object.keys(res.body.errors)]).toEqual([field, [field]]);
      };
      await refused({ deactivate_reason: 'other' }, 'other_reason');
      await refused({ deactivate_reason: 'other', other_reason: 'x'.repeat(251) }, 'other_reason');
      await refused({ deactivate_reason: 'duplicate igsn' }, 'duplicate_igsns');
      await refused(
        { deactivate_reason: 'duplicate igsn', duplicate_igsns: [`${owner.code}ZZZZ`] },
        'duplicate_igsns.0',
      );
      await refused({ deactivate_reason: 'duplicate igsn', duplicate_igsns: [sample.igsn] }, 'duplicate_igsns.0');
      await refused(
        { deactivate_reason: 'other', other_reason: 'x', duplicate_igsns: [sample.igsn] },
        'duplicate_igsns',
      );
      await refused({ deactivate_reason: 'lost' }, 'deactivate_reason');
      await refused({}, 'reason');
      await http().post(path).set(stranger.auth).send({ reason: 'other' }).expect(403);
      await http().get(`/api/samples/${sample.igsn}/`).expect(200); // nothing refused changed it

      const done = await http().post(path).set(owner.auth).send({ reason: 'other', comment: 'kept as is' }).expect(200);
      expect(done.body.data).toMatchObject({ is_deactivated: true, can_deactivate: false });
    });
  });
});
