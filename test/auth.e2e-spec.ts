import { INestApplication } from '@nestjs/common';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { runCli } from '../src/cli/commands';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { ConnectionService } from '../src/modules/auth/connection.service';
import { ManualClock, TEST_PASSWORD, createUserWithToken } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig, testKeyPrefix } from './support/test-environment';

const INVALID_REFRESH = { message: 'Invalid or expired refresh token.', errors: {} };

describe('authentication', () => {
  let app: INestApplication;
  const clock = new ManualClock();
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    // idp.example.org is declared an ORCID issuer: its `sub` is an ORCID iD (issue 21 §4).
    app = await createTestApp({ clock, config: testConfig({ ORCID_ID_TOKEN_ISSUERS: 'https://idp.example.org' }) });
  });

  afterAll(async () => {
    await app.close();
  });

  async function developerPair(auth: { Authorization: string }) {
    const res = await http().post('/api/auth/developer-tokens/').set(auth).expect(201);
    return res.body.data as { id: string; access: string; refresh: string; created_at: string; expires_at: string };
  }

  const me = (token: string) => http().get('/api/users/me/').set('Authorization', `Bearer ${token}`);

  describe('login and user details', () => {
    it('signs in with email and password and shows the user', async () => {
      const user = await createUserWithToken(app);
      const login = await http()
        .post('/api/auth/login/')
        .send({ email: user.email.toUpperCase(), password: TEST_PASSWORD });
      expect(login.status).toBe(200);
      const details = await me(login.body.data.access).expect(200);
      expect(details.body.data.jwt_connection).toBeNull();
      expect(details.body.data.user).toMatchObject({
        email: user.email,
        doi_prefix: '10.5072',
        upload_permission_status: 1,
        is_staff: false,
        is_admin: 0,
        storage_used: 0,
        storage_limit: 10737418240,
        individual: { label: 'Test User', fname: 'Test', lname: 'User' },
      });
      const alias = await http()
        .get('/api/auth/user')
        .set('Authorization', `Bearer ${login.body.data.access}`)
        .expect(200);
      expect(alias.body).toEqual(details.body);
    });

    it('gives the same 401 for a wrong password and an unknown email', async () => {
      const user = await createUserWithToken(app);
      const wrong = await http()
        .post('/api/auth/login/')
        .send({ email: user.email, password: 'nope-nope' })
        .expect(401);
      const unknown = await http()
        .post('/api/auth/login/')
        .send({ email: 'nobody@example.org', password: 'x' })
        .expect(401);
      expect(wrong.body).toEqual({ message: 'Invalid email or password.', errors: {} });
      expect(unknown.body).toEqual(wrong.body);
    });
  });

  describe('the bearer guard (specification part 5, rules 1 and 10)', () => {
    let user: Awaited<ReturnType<typeof createUserWithToken>>;

    beforeAll(async () => {
      user = await createUserWithToken(app);
    });

    async function refused(authorization: string | undefined) {
      const req = http().get('/api/users/me/');
      if (authorization !== undefined) req.set('Authorization', authorization);
      const res = await req.expect(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(Object.keys(res.body).sort()).toEqual(['errors', 'message']);
      return res;
    }

    it('needs a token on routes not marked public', async () => {
      expect((await refused(undefined)).body.message).toBe('Authentication credentials were not provided.');
    });

    it('accepts the Bearer scheme in any letter case', async () => {
      await http().get('/api/users/me/').set('Authorization', `bearer ${user.accessToken}`).expect(200);
    });

    it('refuses the Token and Basic schemes', async () => {
      await refused(`Token ${user.accessToken}`);
      await refused(`Basic ${Buffer.from(`${user.email}:${TEST_PASSWORD}`).toString('base64')}`);
    });

    it('refuses a refresh token used as an access token', async () => {
      await refused(`Bearer ${user.refreshToken}`);
    });

    it('refuses alg none, another key, garbage and a not-yet-valid token', async () => {
      const claims = jwt.decode(user.accessToken) as Record<string, unknown>;
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      await refused(`Bearer ${header}.${payload}.`);
      await refused(`Bearer ${jwt.sign(claims, 'another-secret-that-is-long-enough-000000')}`);
      await refused('Bearer not-a-token');
      const secret = testConfig().auth.jwtSecret;
      const future = Math.floor(clock.now().getTime() / 1000) + 3600;
      await refused(`Bearer ${jwt.sign({ ...claims, nbf: future }, secret)}`);
    });

    it('refuses an expired access token (controlled clock)', async () => {
      const fresh = await createUserWithToken(app);
      await me(fresh.accessToken).expect(200);
      clock.advance(3601); // session access tokens live one hour
      try {
        const res = await refused(`Bearer ${fresh.accessToken}`);
        expect(res.body.message).toBe('The access token has expired.');
      } finally {
        clock.advance(-3601);
      }
    });
  });

  describe('developer token pairs (rules 3-5)', () => {
    it('needs upload permission', async () => {
      const user = await createUserWithToken(app, { uploadPermission: false });
      const res = await http().post('/api/auth/developer-tokens/').set(user.auth).expect(403);
      expect(res.body).toEqual({ message: 'Generating developer tokens requires upload permission.', errors: {} });
    });

    it('keeps at most five active pairs: the sixth revokes the oldest', async () => {
      const user = await createUserWithToken(app);
      const pairs = [];
      for (let i = 0; i < 6; i++) pairs.push(await developerPair(user.auth));
      expect(pairs[0]).toMatchObject({
        id: expect.any(String),
        created_at: expect.any(String),
        expires_at: expect.any(String),
      });
      // refresh token lives one year
      const lifetime = Date.parse(pairs[0].expires_at) - Date.parse(pairs[0].created_at);
      expect(Math.round(lifetime / 86400000)).toBe(365);

      const list = await http().get('/api/auth/developer-tokens/').set(user.auth).expect(200);
      expect(list.body.data.map((p: { id: string }) => p.id).sort()).toEqual(
        pairs
          .slice(1)
          .map((p) => p.id)
          .sort(),
      );
      expect(JSON.stringify(list.body)).not.toContain(pairs[1].access);

      await me(pairs[0].access).expect(401);
      expect(
        (await http().post('/api/auth/token/refresh/').send({ refresh: pairs[0].refresh }).expect(401)).body,
      ).toEqual(INVALID_REFRESH);
      await me(pairs[5].access).expect(200);
    });

    it('deletes one pair', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user.auth);
      await http().delete(`/api/auth/developer-tokens/${pair.id}/`).set(user.auth).expect(204);
      await me(pair.access).expect(401);
      await http().delete(`/api/auth/developer-tokens/${pair.id}/`).set(user.auth).expect(404);
      const stranger = await createUserWithToken(app);
      const other = await developerPair(stranger.auth);
      await http().delete(`/api/auth/developer-tokens/${other.id}/`).set(user.auth).expect(404);
      await me(other.access).expect(200);
    });
  });

  describe('rotation (rules 6-7)', () => {
    it('returns a new pair; the old refresh token then gets 401 with the exact message', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user.auth);
      const rotated = await http().post('/api/auth/token/refresh/').send({ refresh: pair.refresh }).expect(200);
      expect(Object.keys(rotated.body.data).sort()).toEqual(['access', 'refresh']);
      expect(rotated.body.data.refresh).not.toBe(pair.refresh);
      await me(pair.access).expect(401);
      await me(rotated.body.data.access).expect(200);

      // the slot keeps its id in the developer settings list
      const list = await http().get('/api/auth/developer-tokens/').set(user.auth).expect(200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([pair.id]);

      // reusing the old one is refused, and ends the pair it was rotated into (reuse detection)
      const reuse = await http().post('/api/auth/token/refresh/').send({ refresh: pair.refresh }).expect(401);
      expect(reuse.body).toEqual(INVALID_REFRESH);
      await me(rotated.body.data.access).expect(401);
    });

    it('accepts a form body', async () => {
      const user = await createUserWithToken(app);
      const res = await http()
        .post('/api/auth/token/refresh')
        .type('form')
        .send({ refresh: user.refreshToken })
        .expect(200);
      await me(res.body.data.access).expect(200);
    });

    it('refuses malformed, access and expired tokens with the same 401', async () => {
      const user = await createUserWithToken(app);
      for (const refresh of ['garbage', user.accessToken]) {
        expect((await http().post('/api/auth/token/refresh/').send({ refresh }).expect(401)).body).toEqual(
          INVALID_REFRESH,
        );
      }
      clock.advance(15 * 86400); // session refresh tokens live 14 days
      try {
        expect(
          (await http().post('/api/auth/token/refresh/').send({ refresh: user.refreshToken }).expect(401)).body,
        ).toEqual(INVALID_REFRESH);
      } finally {
        clock.advance(-15 * 86400);
      }
    });

    it('names the missing field with 400', async () => {
      const res = await http().post('/api/auth/token/refresh/').send({}).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['refresh']);
    });

    it('lets exactly one of ten parallel refreshes of one token succeed; the other nine are reuse', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user.auth);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => http().post('/api/auth/token/refresh/').send({ refresh: pair.refresh })),
      );
      const statuses = results.map((res) => res.status).sort();
      expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401, 401, 401]);
      // The nine losers presented a token that had just been rotated: the pair is revoked.
      const winner = results.find((res) => res.status === 200);
      await me(winner?.body.data.access as string).expect(401);
      await http()
        .post('/api/auth/token/refresh/')
        .send({ refresh: winner?.body.data.refresh as string })
        .expect(401);
    });
  });

  describe('revocation (rules 8-9)', () => {
    it('blacklists one refresh token and ends its access tokens', async () => {
      const user = await createUserWithToken(app);
      const pair = await developerPair(user.auth);
      const res = await http().post('/api/auth/token/blacklist/').send({ refresh: pair.refresh }).expect(200);
      expect(res.body).toEqual({ data: { message: 'Token blacklisted.' } });
      await me(pair.access).expect(401);
      expect(
        (await http().post('/api/auth/token/blacklist/').send({ refresh: pair.refresh }).expect(401)).body,
      ).toEqual(INVALID_REFRESH);
      await http().post('/api/auth/token/refresh/').send({ refresh: pair.refresh }).expect(401);
    });

    it('blacklist-all revokes every developer pair and leaves connection tokens alone', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const orcid = '0000-0002-1825-0097';
      const user = await createUserWithToken(app, { orcid: orcid });
      const name = `lims-${randomUUID().slice(0, 8)}`;
      await app.get(ConnectionService).create({
        name,
        issuer: 'https://idp.example.org',
        audience: 'sample-registry',
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      });
      const idToken = jwt.sign({ sub: orcid }, privateKey, {
        algorithm: 'RS256',
        issuer: 'https://idp.example.org',
        audience: 'sample-registry',
        expiresIn: 300,
      });
      const exchanged = await http().post(`/api/auth/token/${name}/`).send({ token: idToken }).expect(200);
      const developer = [await developerPair(user.auth), await developerPair(user.auth)];

      const res = await http().delete('/api/auth/token/blacklist-all/').set(user.auth).expect(200);
      expect(res.body).toEqual({ data: { revoked_count: 2 } });
      for (const pair of developer) await me(pair.access).expect(401);
      const details = await me(exchanged.body.data.access).expect(200);
      expect(details.body.data.jwt_connection).toBe(name);
      await http().post('/api/auth/token/refresh/').send({ refresh: exchanged.body.data.refresh }).expect(200);
    });
  });

  describe('integration connections', () => {
    const issuer = 'https://login.example.org';
    const audience = 'registry-client';
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let jwks: Server;
    let name: string;

    beforeAll(async () => {
      const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'key-1', use: 'sig' };
      jwks = createServer((_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
      name = `idp-${randomUUID().slice(0, 8)}`;
      const port = (jwks.address() as AddressInfo).port;
      await app.get(ConnectionService).create({ name, issuer, audience, jwksUrl: `http://127.0.0.1:${port}/jwks` });
    });

    afterAll(async () => {
      await new Promise((resolve) => jwks.close(resolve));
    });

    const sign = (claims: object, options: jwt.SignOptions = {}) =>
      jwt.sign(claims, privateKey, {
        algorithm: 'ES256',
        keyid: 'key-1',
        issuer,
        audience,
        expiresIn: 300,
        ...options,
      });

    it('exchanges an id_token verified against the JWKS, matching the user by email', async () => {
      const user = await createUserWithToken(app);
      const res = await http()
        .post(`/api/auth/token/${name}`)
        .type('form')
        .send({ token: sign({ sub: 'x', email: user.email }) });
      expect(res.status).toBe(200);
      const details = await me(res.body.data.access).expect(200);
      expect(details.body.data).toMatchObject({ jwt_connection: name, user: { email: user.email } });
    });

    it('refuses a wrong audience, issuer, key, an expired token and an unknown identity', async () => {
      const user = await createUserWithToken(app);
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      const bad = [
        sign({ email: user.email }, { audience: 'someone-else' }),
        sign({ email: user.email }, { issuer: 'https://evil.example.org' }),
        jwt.sign({ email: user.email }, other, { algorithm: 'ES256', keyid: 'key-1', issuer, audience }),
        jwt.sign({ email: user.email, exp: Math.floor(Date.now() / 1000) - 600 }, privateKey, {
          algorithm: 'ES256',
          keyid: 'key-1',
          issuer,
          audience,
        }),
        sign({ email: 'nobody@example.org' }),
      ];
      for (const token of bad) {
        const res = await http().post(`/api/auth/token/${name}/`).send({ token });
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    });

    it('answers 404 for an unknown connection', async () => {
      const res = await http()
        .post('/api/auth/token/no-such-idp/')
        .send({ token: sign({}) })
        .expect(404);
      expect(res.body).toEqual({ message: 'No integration connection named no-such-idp.', errors: {} });
    });
  });
});

describe('rate limits', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp({
      config: testConfig({
        AUTH_RATE_LIMIT_PER_IP: '8',
        AUTH_RATE_LIMIT_PER_ACCOUNT: '3',
        REDIS_KEY_PREFIX: `${testKeyPrefix()}-ratelimit`,
      }),
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('limits login attempts per account, then per IP, with 429 and Retry-After', async () => {
    const email = `limited-${randomUUID()}@example.org`;
    for (let i = 0; i < 3; i++) {
      await request(app.getHttpServer()).post('/api/auth/login/').send({ email, password: 'wrong-guess' }).expect(401);
    }
    const limited = await request(app.getHttpServer())
      .post('/api/auth/login/')
      .send({ email, password: 'wrong-guess' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.message).toMatch(/^Too many attempts; try again in \d+ seconds\.$/);
    expect(limited.body.errors).toEqual({});

    // other accounts from the same IP still get through until the IP budget (8) is spent
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await request(app.getHttpServer())
        .post('/api/auth/login/')
        .send({ email: `other-${i}-${randomUUID()}@example.org`, password: 'x' });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });

  it('shares the counters across replicas through Redis', async () => {
    const email = `replica-${randomUUID()}@example.org`;
    const other = await createTestApp({
      config: testConfig({
        AUTH_RATE_LIMIT_PER_IP: '8',
        AUTH_RATE_LIMIT_PER_ACCOUNT: '3',
        REDIS_KEY_PREFIX: `${testKeyPrefix()}-ratelimit`,
      }),
    });
    try {
      // this IP spent its login budget on the first replica in the test above
      const res = await request(other.getHttpServer()).post('/api/auth/login/').send({ email, password: 'x' });
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await other.close();
    }
  });
});

describe('admin CLI', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, testConfig(), { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
    return {
      code,
      lines: out,
      // JSON, unless --field printed plain text.
      json: out.length && out[0].startsWith('{') ? JSON.parse(out.join('\n')) : undefined,
      stderr: err.join('\n'),
      stdoutLines: out.length,
    };
  }

  it('creates a usable account, team, registry codes and a token pair', async () => {
    const email = `cli-${randomUUID()}@example.org`;
    const created = await cli(
      'user:create',
      '--email',
      email,
      '--password',
      'a-long-password',
      '--name',
      'Ada Lovelace',
      '--upload-permission',
    );
    expect(created).toMatchObject({
      code: 0,
      stdoutLines: 1,
      json: { email, name: 'Ada Lovelace', upload_permission_status: 1 },
    });

    const login = await request(app.getHttpServer())
      .post('/api/auth/login/')
      .send({ email, password: 'a-long-password' });
    expect(login.status).toBe(200);

    const team = `team-${randomUUID().slice(0, 8)}`;
    expect((await cli('team:create', '--name', team)).code).toBe(0);
    expect((await cli('team:add-member', '--team', team, '--email', email, '--role', 'editor')).json).toMatchObject({
      role: 'editor',
    });
    const code = `IE${randomUUID().replace(/-/g, '').slice(0, 3).toUpperCase()}`;
    const registered = await cli('registry-code:create', '--code', code.toLowerCase(), '--team', team);
    expect(registered).toMatchObject({ code: 0, json: { code } });
    const accounts = app.get(AccountsService);
    expect(await accounts.canUseRegistryCode({ userId: created.json.id, isStaff: false, isAdmin: false }, code)).toBe(
      true,
    );

    const token = await cli('token:create', '--email', email);
    expect(token.code).toBe(0);
    const details = await request(app.getHttpServer())
      .get('/api/users/me/')
      .set('Authorization', `Bearer ${token.json.access}`);
    expect(details.status).toBe(200);

    // --field prints one field as plain text, for a shell variable.
    const raw = await cli('token:create', '--email', email, '--field', 'access');
    expect(raw.code).toBe(0);
    expect(raw.lines).toHaveLength(1);
    expect(raw.lines[0]).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await request(app.getHttpServer()).get('/api/users/me/').set('Authorization', `Bearer ${raw.lines[0]}`).expect(200);
    const unknown = await cli('token:create', '--email', email, '--field', 'nope');
    expect(unknown.code).toBe(2);
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const email = `dup-${randomUUID()}@example.org`;
    expect((await cli('user:create', '--email', email, '--password', 'a-long-password')).code).toBe(0);
    const duplicate = await cli('user:create', '--email', email.toUpperCase(), '--password', 'a-long-password');
    expect(duplicate).toMatchObject({ code: 1, stdoutLines: 0 });
    expect(duplicate.stderr).toContain('already exists');

    const malformed = await cli('registry-code:create', '--code', 'ABCDEFG', '--owner-email', email);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('must be IE followed by 3 letters or digits');

    const unknownTeam = await cli('team:add-member', '--team', 'no-such-team', '--email', email, '--role', 'viewer');
    expect(unknownTeam).toMatchObject({ code: 1 });
    expect(unknownTeam.stderr).toContain('No team named no-such-team');

    expect((await cli('user:create', '--email', email)).code).toBe(2);
    expect((await cli('no-such-command')).code).toBe(2);
  });
});
