import { INestApplication } from '@nestjs/common';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ConnectionService } from '../src/modules/auth/connection.service';
import { ManualClock, TEST_PASSWORD, TestUser, createRegistrant, createUserWithToken } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig, testKeyPrefix } from './support/test-environment';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

const INVALID_REFRESH = { message: 'Invalid or expired refresh token.', errors: {} };
const NUL_PROBLEM = ['must not contain a NUL character'];
const DAY = 86_400;

/** `tim-…@example.org` and the same address with a capital dotted I (`tİm-…`), which citext equates. */
function dottedIVariant(): { plain: string; dotted: string } {
  const local = `tim-${randomUUID().slice(0, 8)}`;
  return { plain: `${local}@example.org`, dotted: `${local.replace('i', 'İ')}@example.org` };
}

describe('hostile and odd HTTP input', () => {
  let app: INestApplication;
  let db: DataSource;
  let owner: Registrant;
  const clock = new ManualClock();
  const http = () => request(app.getHttpServer());
  const me = (token: string) => http().get('/api/users/me/').set('Authorization', `Bearer ${token}`);

  beforeAll(async () => {
    app = await createTestApp({ clock });
    db = app.get(DataSource);
    owner = await createRegistrant(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const sampleBody = (extra: Record<string, unknown> = {}) => ({
    registry_code: owner.code,
    name: `hostile-${randomUUID().slice(0, 8)}`,
    object_type: 'Core',
    latitude: 41.5,
    longitude: -72.8,
    ...extra,
  });
  const register = (body: object) => http().post('/api/samples/').set(owner.auth).send(body);
  const samplesNamed = async (name: string) =>
    Number((await db.query('SELECT count(*) AS n FROM sample WHERE name = $1', [name]))[0].n);

  describe('a NUL character anywhere is a 400 naming the field (PostgreSQL cannot store one)', () => {
    it('in the search q, ?search= of a reference list, and a path segment', async () => {
      const search = await http().get('/api/samples/?q=co%00re').expect(400);
      expect(search.body).toEqual({
        message: 'Invalid q: must not contain a NUL character.',
        errors: { q: NUL_PROBLEM },
      });
      const individuals = await http().get('/api/individuals/?search=%00').expect(400);
      expect(individuals.body.errors).toEqual({ search: NUL_PROBLEM });
      const path = await http().get('/api/samples/IEABC%0001/').expect(400);
      expect(path.body.errors).toEqual({ path: NUL_PROBLEM });
    });

    it('in the login email, as JSON and as a form', async () => {
      const json = await http()
        .post('/api/auth/login/')
        .send({ email: `${owner.email}\u0000`, password: TEST_PASSWORD })
        .expect(400);
      expect(json.body.errors).toEqual({ email: NUL_PROBLEM });
      const form = await http()
        .post('/api/auth/login/')
        .type('form')
        .send(`email=${encodeURIComponent(owner.email)}%00&password=x`)
        .expect(400);
      expect(form.body.errors).toEqual({ email: NUL_PROBLEM });
    });

    it('in sample fields, nested ones by their path; nothing is stored', async () => {
      const body = sampleBody();
      const name = await register({ ...body, name: `${body.name}\u0000` }).expect(400);
      expect(name.body.errors).toEqual({ name: NUL_PROBLEM });
      const nested = await register({
        ...body,
        collectors: [{ individual: { label: 'Marie\u0000Tharp' } }],
      }).expect(400);
      expect(nested.body).toEqual({
        message: 'Invalid collectors.0.individual.label: must not contain a NUL character.',
        errors: { 'collectors.0.individual.label': NUL_PROBLEM },
      });
      expect(await samplesNamed(body.name)).toBe(0);

      const created = (await register(body).expect(201)).body.data;
      const patched = await http()
        .patch(`/api/samples/${created.igsn}/`)
        .set(owner.auth)
        .send({ sample_description: 'core\u0000top' })
        .expect(400);
      expect(patched.body.errors).toEqual({ sample_description: NUL_PROBLEM });
      const key = await register({ ...sampleBody(), ['bad\u0000key']: 1 }).expect(400);
      expect(key.body.errors).toEqual({ 'bad\\u0000key': NUL_PROBLEM });
      expect(JSON.stringify(key.body)).not.toContain('\u0000');
      const fetched = await http().get(`/api/samples/${created.igsn}/`).set(owner.auth).expect(200);
      expect(fetched.body.data.sample_description).toBeNull();
    });
  });

  describe('deeply nested JSON', () => {
    it('refuses 20,000 levels with 400, whether arrays or objects, and stores nothing', async () => {
      const arrays = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
      const res = await http().post('/api/samples/').set(owner.auth).type('json').send(arrays).expect(400);
      expect(res.body).toEqual({ message: 'JSON in request body is nested deeper than 64 levels.', errors: {} });

      const body = sampleBody();
      const objects = `${JSON.stringify(body).slice(0, -1)},"platform":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`;
      await http().post('/api/samples/').set(owner.auth).type('json').send(objects).expect(400);
      expect(await samplesNamed(body.name)).toBe(0);

      await http().post('/api/auth/login/').type('json').send(`{"email":${arrays}}`).expect(400);
    });

    it('counts only brackets outside strings, and lets ordinary nesting through', async () => {
      const body = sampleBody({ sample_description: '['.repeat(500) });
      const created = await register(body).expect(201);
      expect(created.body.data.sample_description).toBe('['.repeat(500));
      const nested = await register({ ...sampleBody(), platform: { label: { a: { b: { c: 1 } } } } }).expect(400);
      expect(Object.keys(nested.body.errors)).toContain('platform.label');
    });
  });

  describe('PUT and DELETE on a sample', () => {
    it('are 405 with Allow, with or without a token, in both IGSN forms; the sample is unchanged', async () => {
      const created = (await register(sampleBody()).expect(201)).body.data;
      const suffix = (created.igsn as string).split('/')[1];
      for (const path of [`/api/samples/${suffix}/`, `/api/samples/${created.igsn}`]) {
        for (const method of ['put', 'delete'] as const) {
          for (const auth of [owner.auth, {}]) {
            const res = await http()[method](path).set(auth).send({ name: 'replaced' });
            expect(res.status).toBe(405);
            expect(res.headers.allow).toBe('GET, HEAD, PATCH');
            expect(Object.keys(res.body).sort()).toEqual(['errors', 'message']);
          }
        }
      }
      const fetched = await http().get(`/api/samples/${suffix}/`).expect(200);
      expect(fetched.body.data).toMatchObject({ name: created.name, is_deactivated: false });
    });
  });

  describe('blank choices (the specification’s BlankEnum)', () => {
    const BLANKS = { elevation_unit: '', depth_unit: '', sampling_date_precision: '' };
    const NULLS = { elevation_unit: null, depth_unit: null, sampling_date_precision: null };

    it('accepts an empty elevation_unit, depth_unit and sampling_date_precision as not given', async () => {
      const created = await register(sampleBody({ elevation: 12, depth_min: 1, ...BLANKS })).expect(201);
      expect(created.body.data).toMatchObject({ elevation: 12, ...NULLS });

      const set = { elevation_unit: 'feet', depth_unit: 'meters', sampling_date_precision: 'day' };
      const igsn = created.body.data.igsn as string;
      const patch = (body: object) => http().patch(`/api/samples/${igsn}/`).set(owner.auth).send(body);
      expect((await patch(set).expect(200)).body.data).toMatchObject(set);
      expect((await patch(BLANKS).expect(200)).body.data).toMatchObject(NULLS);
    });

    it('still refuses other values', async () => {
      const res = await register(sampleBody({ elevation_unit: ' ', depth_unit: 'parsecs' })).expect(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['depth_unit', 'elevation_unit']);
    });
  });

  describe('email case is folded one way (login and OpenID Connect)', () => {
    it('does not sign tİm@… in to the account of tim@…, while TIM@… is the same account', async () => {
      const { plain, dotted } = dottedIVariant();
      await createUserWithToken(app, { email: plain });
      const dottedLogin = await http().post('/api/auth/login/').send({ email: dotted, password: TEST_PASSWORD });
      expect(dottedLogin.status).toBe(401);
      expect(dottedLogin.body).toEqual({ message: 'Invalid email or password.', errors: {} });
      await http().post('/api/auth/login/').send({ email: plain.toUpperCase(), password: TEST_PASSWORD }).expect(200);
    });
  });

  describe('integration connections', () => {
    const issuer = 'https://idp.hostile.example.org';
    const audience = 'sample-registry';
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let name: string;
    const sign = (claims: object, options: jwt.SignOptions = { expiresIn: 300 }) =>
      jwt.sign(claims, privateKey, { algorithm: 'ES256', issuer, audience, ...options });
    const exchange = (token: string) => http().post(`/api/auth/token/${name}/`).send({ token });

    beforeAll(async () => {
      name = `hostile-${randomUUID().slice(0, 8)}`;
      await app.get(ConnectionService).create({
        name,
        issuer,
        audience,
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      });
    });

    it('matches the email claim by the same fold as login', async () => {
      const { plain, dotted } = dottedIVariant();
      const user = await createUserWithToken(app, { email: plain });
      const dottedRes = await exchange(sign({ sub: 'idp-1', email: dotted })).expect(401);
      expect(dottedRes.body.message).toBe('No registry account matches this identity.');
      const upper = await exchange(sign({ sub: 'idp-1', email: plain.toUpperCase() })).expect(200);
      expect((await me(upper.body.data.access).expect(200)).body.data.user.email).toBe(user.email);
    });

    it('requires exp and refuses an email its issuer has not verified', async () => {
      const user = await createUserWithToken(app);
      const noExp = await exchange(sign({ sub: 'idp-2', email: user.email }, {})).expect(401);
      expect(noExp.body).toEqual({ message: 'The identity token is invalid or expired.', errors: {} });
      const unverified = await exchange(sign({ sub: 'idp-2', email: user.email, email_verified: false })).expect(401);
      expect(unverified.body.message).toBe('The identity provider has not verified this email address.');
      await exchange(sign({ sub: 'idp-2', email: user.email, email_verified: 'false' })).expect(401);
      await exchange(sign({ sub: 'idp-2', email: user.email, email_verified: true })).expect(200);
    });

    it('gives tokens that can neither create developer tokens nor revoke them, one or all (403)', async () => {
      const user = await createUserWithToken(app);
      const developer = (await http().post('/api/auth/developer-tokens/').set(user.auth).expect(201)).body.data;
      const pair = (await exchange(sign({ sub: 'idp-3', email: user.email })).expect(200)).body.data;
      const connection = { Authorization: `Bearer ${pair.access}` };

      const create = await http().post('/api/auth/developer-tokens/').set(connection).expect(403);
      expect(create.body).toEqual({
        message: 'Tokens issued to an integration connection cannot create developer tokens.',
        errors: {},
      });
      const all = await http().delete('/api/auth/token/blacklist-all/').set(connection).expect(403);
      expect(all.body.message).toBe('Tokens issued to an integration connection cannot revoke developer tokens.');
      await http().delete(`/api/auth/developer-tokens/${developer.id}/`).set(connection).expect(403);

      // Nothing was created or revoked; the user's own session still may.
      const list = await http().get('/api/auth/developer-tokens/').set(user.auth).expect(200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([developer.id]);
      await me(developer.access).expect(200);
      await http().delete('/api/auth/token/blacklist-all/').set(user.auth).expect(200);
      await me(developer.access).expect(401);
    });
  });

  describe('refresh rotation', () => {
    async function developerPair(user: TestUser) {
      return (await http().post('/api/auth/developer-tokens/').set(user.auth).expect(201)).body.data as {
        id: string;
        access: string;
        refresh: string;
        expires_at: string;
      };
    }
    const rotate = (refresh: string) => http().post('/api/auth/token/refresh/').send({ refresh });

    it('gives the rotated refresh token a full lifetime from the rotation', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user);
      clock.advance(300 * DAY);
      try {
        const rotated = (await rotate(pair.refresh).expect(200)).body.data;
        const claims = jwt.decode(rotated.refresh) as { exp: number; iat: number };
        expect(claims.exp - claims.iat).toBe(365 * DAY);
        const list = await http()
          .get('/api/auth/developer-tokens/')
          .set('Authorization', `Bearer ${rotated.access}`)
          .expect(200);
        const expiresAt = Date.parse(list.body.data[0].expires_at);
        expect(Math.round((expiresAt - clock.now().getTime()) / 1000 / DAY)).toBe(365);

        // Past the first token's year, the rotated one still works.
        clock.advance(100 * DAY);
        const again = (await rotate(rotated.refresh).expect(200)).body.data;
        await me(again.access).expect(200);
      } finally {
        clock.advance(-400 * DAY);
      }
    });

    it('also for session pairs (14 days)', async () => {
      const user = await createUserWithToken(app);
      clock.advance(13 * DAY);
      try {
        const rotated = (await rotate(user.refreshToken).expect(200)).body.data;
        clock.advance(13 * DAY);
        const again = await rotate(rotated.refresh).expect(200);
        const claims = jwt.decode(again.body.data.refresh) as { exp: number; iat: number };
        expect(claims.exp - claims.iat).toBe(14 * DAY);
      } finally {
        clock.advance(-26 * DAY);
      }
    });

    it('revokes the pair a reused (already rotated) refresh token was rotated into', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user);
      const rotated = (await rotate(pair.refresh).expect(200)).body.data;
      await me(rotated.access).expect(200);

      expect((await rotate(pair.refresh).expect(401)).body).toEqual(INVALID_REFRESH);
      await me(rotated.access).expect(401);
      expect((await rotate(rotated.refresh).expect(401)).body).toEqual(INVALID_REFRESH);
      const list = await http().get('/api/auth/developer-tokens/').set(user.auth).expect(200);
      expect(list.body.data).toEqual([]);
      const [row] = await db.query('SELECT revoked_reason FROM token_pair WHERE id = $1', [pair.id]);
      expect(row.revoked_reason).toBe('refresh-token-reuse');
      // Other pairs of the user are not touched.
      await me(user.accessToken).expect(200);

      // The same when the rotated token is presented to blacklist.
      const other = await developerPair(user);
      const next = (await rotate(other.refresh).expect(200)).body.data;
      const blacklisted = await http().post('/api/auth/token/blacklist/').send({ refresh: other.refresh }).expect(401);
      expect(blacklisted.body).toEqual(INVALID_REFRESH);
      await me(next.access).expect(401);
    });

    it('does not revoke anything for a forged token naming the pair', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user);
      const claims = jwt.decode(pair.refresh) as Record<string, unknown>;
      const forged = jwt.sign({ ...claims, gen: 0 }, 'another-secret-that-is-long-enough-000000');
      await rotate(forged).expect(401);
      await me(pair.access).expect(200);
    });
  });
});

describe('login rate limit buckets fold email case one way', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp({
      config: testConfig({
        AUTH_RATE_LIMIT_PER_IP: '1000',
        AUTH_RATE_LIMIT_PER_ACCOUNT: '3',
        REDIS_KEY_PREFIX: `${testKeyPrefix()}-hostile-ratelimit`,
      }),
    });
  });

  afterAll(async () => {
    await app.close();
  });

  const login = (email: string, password = 'wrong-guess') =>
    request(app.getHttpServer()).post('/api/auth/login/').send({ email, password });

  it('counts tİm@…, TIM@… and tím@… against the bucket of tim@…', async () => {
    const { plain, dotted } = dottedIVariant();
    await createUserWithToken(app, { email: plain });
    for (const email of [plain, plain.toUpperCase(), dotted]) expect((await login(email)).status).toBe(401);
    for (const email of [dotted, plain, plain.replace('i', 'í'), ` ${plain.toUpperCase()} `]) {
      const res = await login(email, TEST_PASSWORD);
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
    }
    // Another account is not affected.
    expect((await login(dottedIVariant().plain)).status).toBe(401);
  });
});
