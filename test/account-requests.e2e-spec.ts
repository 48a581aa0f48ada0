import { INestApplication } from '@nestjs/common';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { ConnectionService } from '../src/modules/auth/connection.service';
import { TokenService } from '../src/modules/auth/token.service';
import { TestUser, createUserWithToken, uniqueRegistryCode } from './support/auth';
import { createTestApp } from './support/test-app';

interface RequestJson {
  id: number;
  kind: string;
  status: string;
  reason: string;
  code: string | null;
  team: { id: number; name: string } | null;
  requester: { id: number; email: string | null; name: string | null };
  decided_by: string | null;
  decision_message: string | null;
}

/** A code no registry code and no request of this run has taken yet. */
async function freeCode(app: INestApplication): Promise<string> {
  for (;;) {
    const code = uniqueRegistryCode();
    if (!(await app.get(AccountsService).registryCodeExists(code))) return code;
  }
}

describe('requests a curator decides (upload permission, registry codes)', () => {
  let app: INestApplication;
  let curator: TestUser;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
    curator = await createUserWithToken(app, { isStaff: true });
  });

  afterAll(async () => {
    await app.close();
  });

  const askAccess = (user: TestUser, body: object, path = '/api/api-access-request/') =>
    http().post(path).set(user.auth).send(body);

  describe('upload permission ("API access")', () => {
    it("records a request at SESAR2's path; a staff approval grants the permission and notifies the requester", async () => {
      const researcher = await createUserWithToken(app, { uploadPermission: false });
      await http().post('/api/auth/developer-tokens/').set(researcher.auth).expect(403);

      const created = await askAccess(researcher, { reason: '  Cores of cruise AT42.  ' }).expect(201);
      const asked = created.body.data as RequestJson;
      expect(asked).toMatchObject({
        kind: 'upload_permission',
        status: 'pending',
        reason: 'Cores of cruise AT42.',
        code: null,
        requester: { id: researcher.userId, email: researcher.email, name: 'Test User' },
        decided_by: null,
      });

      // The requester sees their own; staff see it too.
      const mine = await http().get('/api/access-requests/').set(researcher.auth).expect(200);
      expect(mine.body.data.map((row: RequestJson) => row.id)).toEqual([asked.id]);
      expect(mine.body).toMatchObject({ count: 1, current_page: 1, total_pages: 1 });
      const pending = await http().get('/api/access-requests/?status=pending&page_size=200').set(curator.auth);
      expect(pending.status).toBe(200);
      expect(pending.body.data.map((row: RequestJson) => row.id)).toContain(asked.id);

      await http().post(`/api/access-requests/${asked.id}/approve/`).set(researcher.auth).send({}).expect(403);
      const approved = await http()
        .post(`/api/access-requests/${asked.id}/approve/`)
        .set(curator.auth)
        .send({ message: 'Welcome.' })
        .expect(200);
      expect(approved.body.data).toMatchObject({
        status: 'approved',
        decided_by: 'Test User',
        decision_message: 'Welcome.',
      });

      // The permission holds at once, on the token the researcher already has.
      await http().post('/api/auth/developer-tokens/').set(researcher.auth).expect(201);
      const notes = await http().get('/api/users/me/notifications/').set(researcher.auth).expect(200);
      expect(notes.body.data[0]).toMatchObject({
        kind: 'account_request_decided',
        subject: 'Your request for upload permission was approved',
        body: { request_id: asked.id, request_kind: 'upload_permission', status: 'approved', message: 'Welcome.' },
      });

      const again = await http().post(`/api/access-requests/${asked.id}/refuse/`).set(curator.auth).send({
        message: 'Too late.',
      });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ message: 'This request was already approved.', errors: {} });
      await askAccess(researcher, { reason: 'More.' }, '/api/access-requests/').expect(409);
    });

    it('keeps one pending request per person, and refusal needs a message the requester then reads', async () => {
      const researcher = await createUserWithToken(app, { uploadPermission: false });
      const first = (await askAccess(researcher, { reason: 'First.' }).expect(201)).body.data as RequestJson;
      const twice = await askAccess(researcher, { reason: 'Second.' }).expect(409);
      expect(twice.body.message).toBe('You already asked for upload permission; a curator will decide soon.');

      const noMessage = await http().post(`/api/access-requests/${first.id}/refuse/`).set(curator.auth).send({});
      expect(noMessage.status).toBe(400);
      expect(Object.keys(noMessage.body.errors)).toEqual(['message']);
      await http()
        .post(`/api/access-requests/${first.id}/refuse/`)
        .set(curator.auth)
        .send({ message: "Use your institution's account." })
        .expect(200);
      const seen = await http().get(`/api/access-requests/${first.id}/`).set(researcher.auth).expect(200);
      expect(seen.body.data).toMatchObject({ status: 'refused', decision_message: "Use your institution's account." });
      await http().post('/api/auth/developer-tokens/').set(researcher.auth).expect(403);
      // Refused, so a new request may be made.
      await askAccess(researcher, { reason: "Now with the institution's backing." }).expect(201);
    });

    it("answers every bad input with a 4xx naming it, and hides other people's requests", async () => {
      const researcher = await createUserWithToken(app, { uploadPermission: false });
      const stranger = await createUserWithToken(app, { uploadPermission: false });
      await http().post('/api/api-access-request/').send({ reason: 'x' }).expect(401);
      for (const [body, field] of [
        [{}, 'reason'],
        [{ reason: '   ' }, 'reason'],
        [{ reason: 7 }, 'reason'],
        [{ reason: 'x'.repeat(2001) }, 'reason'],
        [{ reason: 'ok', colour: 'red' }, 'colour'],
      ] as const) {
        const res = await askAccess(researcher, body).expect(400);
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
      const withPermission = await createUserWithToken(app);
      expect((await askAccess(withPermission, { reason: 'x' }).expect(409)).body.message).toBe(
        'You already have upload permission.',
      );

      const asked = (await askAccess(researcher, { reason: 'Mine.' }).expect(201)).body.data as RequestJson;
      await http().get(`/api/access-requests/${asked.id}/`).set(stranger.auth).expect(404);
      expect((await http().get('/api/access-requests/').set(stranger.auth).expect(200)).body.data).toEqual([]);
      for (const id of ['abc', '99999999999', '-1', '1.5']) {
        const res = await http().post(`/api/access-requests/${id}/approve/`).set(curator.auth).send({});
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Access request not found.', errors: {} });
      }
      // A registry-code request is not an access request.
      const code = await freeCode(app);
      const codeRequest = (
        await http().post('/api/registry-code-requests/').set(researcher.auth).send({ code, reason: 'x' }).expect(201)
      ).body.data as RequestJson;
      await http().post(`/api/access-requests/${codeRequest.id}/approve/`).set(curator.auth).send({}).expect(404);

      const badStatus = await http().get('/api/access-requests/?status=maybe').set(curator.auth).expect(400);
      expect(badStatus.body.errors).toEqual({ status: ['must be one of pending, approved, refused'] });
      const unknown = await http().get('/api/access-requests/?colour=red').set(curator.auth).expect(400);
      expect(unknown.body.errors).toEqual({ colour: ['is not a parameter of this list'] });
      await http().get('/api/access-requests/?page=0').set(curator.auth).expect(400);
    });

    it('lets exactly one of two curators deciding at once win', async () => {
      const researcher = await createUserWithToken(app, { uploadPermission: false });
      const asked = (await askAccess(researcher, { reason: 'Race.' }).expect(201)).body.data as RequestJson;
      const other = await createUserWithToken(app, { isStaff: true });
      const answers = await Promise.all([
        http().post(`/api/access-requests/${asked.id}/approve/`).set(curator.auth).send({}),
        http().post(`/api/access-requests/${asked.id}/refuse/`).set(other.auth).send({ message: 'No.' }),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
      const notes = await http().get('/api/users/me/notifications/').set(researcher.auth).expect(200);
      expect(notes.body.count).toBe(1);
    });
  });

  describe('registry codes', () => {
    it('creates the code for the requester on approval, which they can then register under', async () => {
      const researcher = await createUserWithToken(app);
      const code = await freeCode(app);
      const asked = (
        await http()
          .post('/api/registry-code-requests/')
          .set(researcher.auth)
          .send({ code: code.toLowerCase(), reason: 'My cores.' })
          .expect(201)
      ).body.data as RequestJson;
      expect(asked).toMatchObject({ kind: 'registry_code', code, team: null, status: 'pending' });
      const twice = await http()
        .post('/api/registry-code-requests/')
        .set(curator.auth)
        .send({ code, reason: 'Me too.' })
        .expect(409);
      expect(twice.body.errors).toEqual({ code: ['already asked for'] });

      await http().post(`/api/registry-code-requests/${asked.id}/approve/`).set(curator.auth).send({}).expect(200);
      const owner = await app.get(AccountsService).registryCodeOwner(code);
      expect(owner).toMatchObject({ userOwnerId: researcher.userId, teamOwnerId: null });
      await http()
        .post('/api/samples/')
        .set(researcher.auth)
        .send({ registry_code: code, name: 'Core 1', object_type: 'Core', latitude: 41.5, longitude: -72.8 })
        .expect(201);
      const notes = await http().get('/api/users/me/notifications/').set(researcher.auth).expect(200);
      expect(notes.body.data[0]).toMatchObject({ subject: `Your request for registry code ${code} was approved` });
      // An existing code cannot be asked for.
      const exists = await http()
        .post('/api/registry-code-requests/')
        .set(curator.auth)
        .send({ code, reason: 'x' })
        .expect(409);
      expect(exists.body).toEqual({
        message: `Registry code ${code} already exists.`,
        errors: { code: ['already exists'] },
      });
    });

    it("answers approval with the CLI's conflict when the code was created meanwhile, leaving the request pending", async () => {
      const researcher = await createUserWithToken(app);
      const code = await freeCode(app);
      const asked = (
        await http().post('/api/registry-code-requests/').set(researcher.auth).send({ code, reason: 'x' }).expect(201)
      ).body.data as RequestJson;
      await app.get(AccountsService).createRegistryCode(code, { email: curator.email });
      const res = await http().post(`/api/registry-code-requests/${asked.id}/approve/`).set(curator.auth).send({});
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        message: `Registry code ${code} already exists.`,
        errors: { code: ['already exists'] },
      });
      const seen = await http().get(`/api/registry-code-requests/${asked.id}/`).set(researcher.auth).expect(200);
      expect(seen.body.data.status).toBe('pending');
      expect((await http().get('/api/users/me/notifications/').set(researcher.auth)).body.count).toBe(0);
      await http()
        .post(`/api/registry-code-requests/${asked.id}/refuse/`)
        .set(curator.auth)
        .send({ message: 'Taken meanwhile; ask for another.' })
        .expect(200);
    });

    it('refuses a code inside a namespace already used by a shorter code, as the CLI does', async () => {
      // A legacy 3-character code IEx mints IEx000001, which lies in the namespace of a new code IEx00.
      const holder = await createUserWithToken(app);
      const accounts = app.get(AccountsService);
      let legacy: string | undefined;
      for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') {
        try {
          await accounts.createRegistryCode(`IE${char}`, { email: holder.email });
          legacy = `IE${char}`;
          break;
        } catch {
          // taken by another suite of this run: try the next
        }
      }
      expect(legacy).toBeDefined();
      const sample = await http()
        .post('/api/samples/')
        .set(holder.auth)
        .send({ registry_code: legacy, name: 'Legacy 1', object_type: 'Core', latitude: 1, longitude: 1 })
        .expect(201);
      const longer = (sample.body.data.igsn as string).split('/')[1].slice(0, 5);
      const researcher = await createUserWithToken(app);
      const asked = await http()
        .post('/api/registry-code-requests/')
        .set(researcher.auth)
        .send({ code: longer, reason: 'x' })
        .expect(201);
      const res = await http()
        .post(`/api/registry-code-requests/${asked.body.data.id}/approve/`)
        .set(curator.auth)
        .send({});
      expect(res.status).toBe(409);
      expect(res.body.errors.code[0]).toContain('already registered in this namespace under a shorter code');
      expect(await accounts.registryCodeOwner(longer)).toBeUndefined();
    });

    it("asks for a team only the team's current manager may, and gives the code to the team", async () => {
      const manager = await createUserWithToken(app);
      const editor = await createUserWithToken(app);
      const accounts = app.get(AccountsService);
      const teamName = `Core lab ${randomUUID().slice(0, 8)}`;
      await accounts.createTeam(teamName);
      await accounts.addTeamMember(teamName, manager.email, 'manager');
      await accounts.addTeamMember(teamName, editor.email, 'editor');

      const code = await freeCode(app);
      const refused = await http()
        .post('/api/registry-code-requests/')
        .set(editor.auth)
        .send({ code, team: teamName, reason: 'x' })
        .expect(403);
      expect(refused.body).toEqual({
        message: 'You can ask for a registry code only for a team you manage.',
        errors: { team: ['not a team you manage'] },
      });
      await http()
        .post('/api/registry-code-requests/')
        .set(editor.auth)
        .send({ code, team: 'No such team', reason: 'x' })
        .expect(403);

      const asked = (
        await http()
          .post('/api/registry-code-requests/')
          .set(manager.auth)
          .send({ code, team: teamName.toUpperCase(), reason: 'The lab.' })
          .expect(201)
      ).body.data as RequestJson;
      expect(asked.team?.name).toBe(teamName);
      await http().post(`/api/registry-code-requests/${asked.id}/approve/`).set(curator.auth).send({}).expect(200);
      const team = await accounts.requireTeamByName(teamName);
      expect(await accounts.registryCodeOwner(code)).toMatchObject({ userOwnerId: null, teamOwnerId: team.id });

      // Demoted before the decision: the team does not get the code.
      const second = await freeCode(app);
      const later = (
        await http()
          .post('/api/registry-code-requests/')
          .set(manager.auth)
          .send({ code: second, team: teamName, reason: 'Another.' })
          .expect(201)
      ).body.data as RequestJson;
      await accounts.addTeamMember(teamName, manager.email, 'viewer');
      const res = await http().post(`/api/registry-code-requests/${later.id}/approve/`).set(curator.auth).send({});
      expect(res.status).toBe(409);
      expect(res.body.errors).toEqual({ team: ['requester is no longer a manager'] });
      expect(await accounts.registryCodeOwner(second)).toBeUndefined();
    });

    it('refuses malformed codes with a 400 naming the code', async () => {
      const researcher = await createUserWithToken(app);
      for (const code of ['IE', 'IEABCD', 'IE-AB', 'XXABC']) {
        const res = await http().post('/api/registry-code-requests/').set(researcher.auth).send({ code, reason: 'x' });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.errors)).toEqual(['code']);
      }
    });
  });
});

describe('sessions listed and revoked by their user', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  it('lists sign-ins and connection pairs beside developer tokens, and ends one at once', async () => {
    const user = await createUserWithToken(app);
    const login = await http()
      .post('/api/auth/login/')
      .send({ email: user.email, password: user.password })
      .expect(200);
    const other = { Authorization: `Bearer ${login.body.data.access}` };
    const developer = (await http().post('/api/auth/developer-tokens/').set(user.auth).expect(201)).body.data;

    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const name = `lims-${randomUUID().slice(0, 8)}`;
    await app.get(ConnectionService).create({
      name,
      issuer: 'https://idp.example.org',
      audience: 'registry',
      publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    });
    const idToken = jwt.sign({ sub: 'x', email: user.email }, privateKey, {
      algorithm: 'RS256',
      issuer: 'https://idp.example.org',
      audience: 'registry',
      expiresIn: 300,
    });
    const exchanged = await http().post(`/api/auth/token/${name}/`).send({ token: idToken }).expect(200);
    const connection = { Authorization: `Bearer ${exchanged.body.data.access}` };

    const listed = await http().get('/api/auth/sessions/').set(user.auth).expect(200);
    const sessions = listed.body.data as { id: string; kind: string; origin: string | null; current: boolean }[];
    expect(sessions.map((row) => [row.kind, row.origin, row.current])).toEqual([
      ['session', null, true],
      ['session', 'api', false],
      ['connection', null, false],
    ]);
    expect(sessions.map((row) => row.id)).not.toContain(developer.id);
    expect(listed.body.data[2]).toMatchObject({ connection: name });

    // A connection-issued token may read the list but not end anything.
    await http().get('/api/auth/sessions/').set(connection).expect(200);
    const forbidden = await http().delete(`/api/auth/sessions/${sessions[1].id}/`).set(connection).expect(403);
    expect(forbidden.body.message).toBe('Tokens issued to an integration connection cannot revoke sessions.');

    await http().delete(`/api/auth/sessions/${sessions[1].id}/`).set(user.auth).expect(204);
    await http().get('/api/users/me/').set(other).expect(401);
    await http().post('/api/auth/token/refresh/').send({ refresh: login.body.data.refresh }).expect(401);
    await http().delete(`/api/auth/sessions/${sessions[2].id}/`).set(user.auth).expect(204);
    await http().get('/api/users/me/').set(connection).expect(401);

    // Developer pairs, other people's sessions, unknown and malformed ids are not sessions of the caller.
    const stranger = await createUserWithToken(app);
    const strangers = (await http().get('/api/auth/sessions/').set(stranger.auth).expect(200)).body.data;
    for (const id of [developer.id, strangers[0].id, randomUUID(), 'nope', '-'.repeat(36)]) {
      const res = await http().delete(`/api/auth/sessions/${id}/`).set(user.auth).expect(404);
      expect(res.body).toEqual({ message: 'Session not found.', errors: {} });
    }
    await http().get('/api/users/me/').set(stranger.auth).expect(200);
    await http()
      .get('/api/users/me/')
      .set({ Authorization: `Bearer ${developer.access}` })
      .expect(200);

    // The caller may end the session they are using.
    await http().delete(`/api/auth/sessions/${sessions[0].id}/`).set(user.auth).expect(204);
    await http().get('/api/auth/sessions/').set(user.auth).expect(401);
  });

  it('never accepts a browser session cookie token as a bearer or refresh token', async () => {
    const user = await createUserWithToken(app);
    const session = await app.get(TokenService).issueBrowserSession(user.userId, 'browser-password');
    await http().get('/api/users/me/').set('Authorization', `Bearer ${session.token}`).expect(401);
    await http().post('/api/auth/token/refresh/').send({ refresh: session.token }).expect(401);
    await http().post('/api/auth/token/blacklist/').send({ refresh: session.token }).expect(401);
    expect(await app.get(TokenService).authenticateBrowserSession(session.token)).toMatchObject({
      userId: user.userId,
      tokenKind: 'session',
    });
    const listed = (await http().get('/api/auth/sessions/').set(user.auth).expect(200)).body.data;
    expect(listed.map((row: { origin: string | null }) => row.origin)).toEqual([null, 'browser-password']);
  });
});
