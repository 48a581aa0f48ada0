import { INestApplication } from '@nestjs/common';
import bcrypt from 'bcryptjs';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Server, createServer, request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { ConnectionService } from '../src/modules/auth/connection.service';
import { TokenService } from '../src/modules/auth/token.service';
import {
  TEST_PASSWORD,
  TestUser,
  createFreshRegistryCode,
  createRegistrant,
  createUserWithToken,
} from './support/auth';
import {
  legacySamplesDocument,
  minimalLegacySample,
  postLegacyXml,
  readLegacyResults,
} from './support/legacy-xml-client';
import { JobState, waitForJob } from './support/jobs';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';
import { WorkerProcess, startWorkerProcess } from './support/worker-process';
import { buildWorkbook } from './support/workbooks';

type Auth = { auth: { Authorization: string } };

/** Issue 21 §3 and §4: what one user owns another cannot change; what a proxy or client says is not trusted blindly. */
describe('authorization', () => {
  let app: INestApplication;
  let dataSource: DataSource;
  const http = () => request(app.getHttpServer());

  /** Started by the one test that needs batches registered. */
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    app = await createTestApp();
    dataSource = app.get(DataSource);
  });

  afterAll(async () => {
    await worker?.stop();
    await app.close();
  });

  const register = (who: Auth, code: string, body: Record<string, unknown> = {}) =>
    http()
      .post('/api/samples/')
      .set(who.auth)
      .send({
        registry_code: code,
        name: `sample-${randomUUID().slice(0, 8)}`,
        object_type: 'Core',
        latitude: 41.5,
        longitude: -72.8,
        ...body,
      });

  /** A team owning a fresh registry code, with members in the given roles. */
  async function team(members: [TestUser, 'viewer' | 'editor' | 'manager'][]): Promise<{ name: string; code: string }> {
    const accounts = app.get(AccountsService);
    const name = `team-${randomUUID().slice(0, 8)}`;
    await accounts.createTeam(name);
    const code = await createFreshRegistryCode(accounts, { team: name });
    for (const [member, role] of members) await accounts.addTeamMember(name, member.email, role);
    return { name, code };
  }

  describe('roles are current, not historical', () => {
    it("refuses a demoted team member's PATCH and deactivation of the samples and templates they created", async () => {
      const member = await createUserWithToken(app);
      const { name, code } = await team([[member, 'editor']]);
      const sample = (await register(member, code, { is_draft: true }).expect(201)).body.data;
      const template = (
        await http()
          .post('/api/batch-templates/')
          .set(member.auth)
          .send({ label: `t-${randomUUID().slice(0, 8)}`, registry_code: code })
          .expect(201)
      ).body.data;
      await http().patch(`/api/samples/${sample.igsn}/`).set(member.auth).send({ name: 'as editor' }).expect(200);

      await app.get(AccountsService).addTeamMember(name, member.email, 'viewer');
      const patched = await http().patch(`/api/samples/${sample.igsn}/`).set(member.auth).send({ name: 'as viewer' });
      expect(patched.status).toBe(403);
      await http()
        .post(`/api/samples/${sample.igsn}/deactivate/`)
        .set(member.auth)
        .send({ reason: 'other' })
        .expect(403);
      const seen = await http().get(`/api/samples/${sample.igsn}/`).set(member.auth).expect(200);
      expect(seen.body.data).toMatchObject({ name: 'as editor', can_edit: false });
      await http()
        .patch(`/api/batch-templates/${template.id}/`)
        .set(member.auth)
        .send({ label: 'renamed' })
        .expect(403);
      const stored = await dataSource.query('SELECT name, is_deactivated FROM sample WHERE igsn = $1', [
        sample.igsn.split('/').pop(),
      ]);
      expect(stored).toEqual([{ name: 'as editor', is_deactivated: false }]);
    });
  });

  describe('a fetch by IGSN checks the token in its own statement (issue 23)', () => {
    const fetch = (igsn: string, who?: Auth, query = '') => {
      const req = http().get(`/api/samples/${igsn}/${query}`);
      return who ? req.set(who.auth) : req;
    };

    it('refuses a revoked token at once, whatever the IGSN or the format asked', async () => {
      const owner = await createRegistrant(app);
      const pair = await app.get(TokenService).issuePair(owner.userId, 'developer');
      const caller = { auth: { Authorization: `Bearer ${pair.access}` } };
      const published = (await register(owner, owner.code).expect(201)).body.data;
      const draft = (await register(owner, owner.code, { is_draft: true }).expect(201)).body.data;
      expect((await fetch(draft.igsn, caller).expect(200)).body.data.can_edit).toBe(true);

      await http().post('/api/auth/token/blacklist/').send({ refresh: pair.refresh }).expect(200);
      for (const res of [
        await fetch(published.igsn, caller),
        await fetch(draft.igsn, caller),
        await fetch('IEZZZZZZZ', caller),
        await fetch(published.igsn, caller, '?format=nonsense'),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: 'The access token has been revoked.', errors: {} });
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
      await fetch(published.igsn).expect(200);
    });

    it('refuses the token of a deactivated account on the next request', async () => {
      const owner = await createRegistrant(app);
      const published = (await register(owner, owner.code).expect(201)).body.data;
      await fetch(published.igsn, owner).expect(200);
      await dataSource.query('UPDATE registry_user SET is_active = false WHERE id = $1', [owner.userId]);
      await fetch(published.igsn, owner).expect(401);
    });

    it('applies a changed role or team membership on the next request', async () => {
      const owner = await createRegistrant(app);
      const other = await createUserWithToken(app);
      const draft = (await register(owner, owner.code, { is_draft: true }).expect(201)).body.data;
      await fetch(draft.igsn, other).expect(404);
      await dataSource.query('UPDATE registry_user SET is_staff = true WHERE id = $1', [other.userId]);
      const asStaff = await fetch(draft.igsn, other).expect(200);
      expect(asStaff.body.data.can_edit).toBe(true);
      expect(asStaff.headers['cache-control']).toBe('private, no-store');
      await dataSource.query('UPDATE registry_user SET is_staff = false WHERE id = $1', [other.userId]);
      await fetch(draft.igsn, other).expect(404);

      const [registrant, member] = [await createUserWithToken(app), await createUserWithToken(app)];
      const { name, code } = await team([
        [registrant, 'editor'],
        [member, 'editor'],
      ]);
      const teamDraft = (await register(registrant, code, { is_draft: true }).expect(201)).body.data;
      expect((await fetch(teamDraft.igsn, member).expect(200)).body.data.can_edit).toBe(true);
      await app.get(AccountsService).addTeamMember(name, member.email, 'viewer');
      expect((await fetch(teamDraft.igsn, member).expect(200)).body.data.can_edit).toBe(false);
      await dataSource.query('DELETE FROM team_member WHERE user_id = $1', [member.userId]);
      await fetch(teamDraft.igsn, member).expect(404);
    });

    it("marks the pair as used, as every route's token check does", async () => {
      const owner = await createRegistrant(app);
      const published = (await register(owner, owner.code).expect(201)).body.data;
      const pair = await app.get(TokenService).issuePair(owner.userId, 'developer');
      await fetch(published.igsn, { auth: { Authorization: `Bearer ${pair.access}` } }).expect(200);
      const [row] = await dataSource.query('SELECT last_used_at FROM token_pair WHERE id = $1', [pair.id]);
      expect(row.last_used_at).not.toBeNull();
    });
  });

  describe('shared people, institutions, archives and platforms', () => {
    it("lets no owner change what another owner's samples name; staff still may", async () => {
      const [alice, bob] = [await createRegistrant(app), await createRegistrant(app)];
      const staff = await createUserWithToken(app, { isStaff: true });
      const word = randomUUID().slice(0, 8);
      const shared = {
        collectors: [{ individual: { label: `Ann Smith ${word}` }, institution: { label: `Lab ${word}` } }],
        platform: { label: `Boat ${word}`, platform_type: 'Ship' },
        current_archive: { label: `Shelf ${word}` },
      };
      const mine = (await register(alice, alice.code, shared).expect(201)).body.data;
      const paths = {
        individual: `/api/individuals/${mine.collectors[0].individual.id}/`,
        institution: `/api/institutions/${mine.collectors[0].institution.id}/`,
        archive: `/api/archives/${mine.current_archive.id}/`,
        platform: `/api/platforms/${mine.platform.id}/`,
      };
      // Alice alone uses them: she corrects them in place.
      await http().patch(paths.platform).set(alice.auth).send({ description: 'Alice alone' }).expect(200);

      const theirs = (await register(bob, bob.code, shared).expect(201)).body.data;
      expect(theirs.platform.id).toBe(mine.platform.id);
      const edits: Record<keyof typeof paths, Record<string, unknown>> = {
        individual: { label: `Mallory ${word}` },
        institution: { label: `Evil Lab ${word}` },
        archive: { label: `Evil Shelf ${word}` },
        platform: { label: `Evil Boat ${word}` },
      };
      for (const [kind, path] of Object.entries(paths) as [keyof typeof paths, string][]) {
        const refused = await http().patch(path).set(alice.auth).send(edits[kind]);
        expect({ kind, status: refused.status }).toEqual({ kind, status: 403 });
        expect(refused.body.message).toContain('other owners');
        await http().patch(path).set(bob.auth).send(edits[kind]).expect(403);
      }
      const bobs = (await http().get(`/api/samples/${theirs.igsn}/`).expect(200)).body.data;
      expect(bobs.platform.label).toBe(`Boat ${word}`);
      expect(bobs.collectors[0].individual.label).toBe(`Ann Smith ${word}`);
      expect(bobs.collectors[0].institution.label).toBe(`Lab ${word}`);
      expect(bobs.current_archive.label).toBe(`Shelf ${word}`);

      await http().patch(paths.platform).set(staff.auth).send({ description: 'curated' }).expect(200);
    });
  });

  describe('parents', () => {
    it("refuses to hang a child under another owner's sample with 403 naming parent_sample (JSON and legacy XML)", async () => {
      const [alice, bob] = [await createRegistrant(app), await createRegistrant(app)];
      const parent = (await register(bob, bob.code, { name: `Bob core ${randomUUID().slice(0, 8)}` }).expect(201)).body
        .data;
      const refused = await register(alice, alice.code, { parent_sample: parent.igsn });
      expect(refused.status).toBe(403);
      expect(Object.keys(refused.body.errors)).toEqual(['parent_sample']);
      const child = (await register(alice, alice.code).expect(201)).body.data;
      const patched = await http()
        .patch(`/api/samples/${child.igsn}/`)
        .set(alice.auth)
        .send({ parent_sample: parent.igsn });
      expect(patched.status).toBe(403);
      expect(Object.keys(patched.body.errors)).toEqual(['parent_sample']);

      const name = `xml-child-${randomUUID().slice(0, 8)}`;
      const xml = legacySamplesDocument(
        minimalLegacySample(alice.code, name, `<parent_igsn>${parent.igsn.split('/').pop()}</parent_igsn>`),
      );
      const res = await postLegacyXml(app, '/webservices/upload.php', xml, { headers: alice.auth });
      const results = await readLegacyResults(res.text);
      expect(results.samples[0]).toMatchObject({ status: 'Not Saved' });
      expect(results.samples[0].error).toContain('parent_sample');

      const children = await dataSource.query('SELECT count(*)::int AS n FROM sample WHERE parent_sample_id = $1', [
        parent.id ?? (await idOf(parent.igsn)),
      ]);
      expect(children).toEqual([{ n: 0 }]);
      // Bob, who may edit his sample, may hang children under it.
      await register(bob, bob.code, { parent_sample: parent.igsn }).expect(201);
    });

    it('refuses such a parent in a batch row as a row error naming parent_sample', async () => {
      const [alice, bob] = [await createRegistrant(app), await createRegistrant(app)];
      const staff = await createUserWithToken(app, { isStaff: true });
      const parent = (await register(bob, bob.code).expect(201)).body.data;
      // The worker registers batches; it may take minutes to start on a loaded machine.
      worker ??= await startWorkerProcess();
      const name = `batch-child-${randomUUID().slice(0, 8)}`;
      const file = buildWorkbook({
        metadata: { registry_code: alice.code },
        headers: ['Sample Name', 'Object Type', 'Latitude (WGS84)', 'Longitude (WGS84)', 'Parent IGSN'],
        rows: [[name, 'Core', 1, 2, parent.igsn]],
      });
      const accepted = await http()
        .post('/api/batches/upload/')
        .set(alice.auth)
        .attach('file', file, 'batch.xlsx')
        .expect(202);
      const job = await waitForJob<JobState & { result?: { errors?: { row: number; message: string }[] } }>(
        app,
        staff,
        accepted.body.data.job_id,
        { timeoutMs: 120_000 },
      );
      expect(job.status).toBe('failed');
      expect(job.result?.errors).toEqual([
        { row: 2, message: expect.stringMatching(/^parent_sample: .*edit permission/) },
      ]);
      expect(await dataSource.query('SELECT id FROM sample WHERE name = $1', [name])).toEqual([]);
    }, 400_000);

    async function idOf(igsn: string): Promise<string> {
      const [row] = await dataSource.query<{ id: string }[]>('SELECT id FROM sample WHERE igsn = $1', [
        igsn.split('/').pop(),
      ]);
      return row.id;
    }
  });

  describe('behind a proxy (TRUST_PROXY)', () => {
    /**
     * An HTTP proxy in front of a second API: it appends the address it sees to X-Forwarded-For,
     * as nginx's $proxy_add_x_forwarded_for does, and passes whatever the client sent before it.
     */
    async function behindProxy(trustProxy: string): Promise<{ url: string; close: () => Promise<void> }> {
      const api = await createTestApp({
        config: testConfig({
          TRUST_PROXY: trustProxy,
          ANONYMOUS_RATE_LIMIT_PER_MINUTE: '5',
          AUTH_RATE_LIMIT_PER_IP: '3',
          // Buckets of their own: other tests' requests from 127.0.0.1 must not count here.
          REDIS_KEY_PREFIX: `authz-proxy-${randomUUID().slice(0, 8)}`,
        }),
      });
      const server = api.getHttpServer() as Server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const target = (server.address() as AddressInfo).port;
      const proxy = createServer((req, res) => {
        // The test's client is on this machine, where loopback is a trusted range; the proxy reports
        // it as the remote client it stands for in production.
        const seen = '203.0.113.7';
        const forwarded = req.headers['x-forwarded-for'];
        const upstream = httpRequest(
          {
            host: '127.0.0.1',
            port: target,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, 'x-forwarded-for': forwarded ? `${String(forwarded)}, ${seen}` : seen },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      return {
        url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        close: async () => {
          await new Promise((resolve) => proxy.close(resolve));
          await api.close();
        },
      };
    }

    it.each(['1', 'loopback', 'true'])(
      'keeps one anonymous read bucket per real client, whatever X-Forwarded-For it sends (TRUST_PROXY=%s)',
      async (trustProxy) => {
        const { url, close } = await behindProxy(trustProxy);
        try {
          const statuses: number[] = [];
          for (let n = 1; n <= 11; n++) {
            const res = await request(url).get('/api/samples/').set('X-Forwarded-For', `198.51.100.${n}`);
            statuses.push(res.status);
          }
          // A limit of 5 in fixed one-minute windows: 11 reads span at most two windows, so at most 10
          // pass whenever the minute turns; with every spoofed address its own bucket, all 11 would.
          expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(10);
          expect(statuses).toContain(429);
          expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
        } finally {
          await close();
        }
      },
    );

    it('applies the per-address login limit to the real client, whatever X-Forwarded-For it sends', async () => {
      const { url, close } = await behindProxy('1');
      try {
        const statuses: number[] = [];
        for (let n = 1; n <= 7; n++) {
          const res = await request(url)
            .post('/api/auth/login/')
            .set('X-Forwarded-For', `198.51.100.${n}`)
            .send({ email: `nobody-${n}-${randomUUID()}@example.org`, password: 'wrong-password' });
          statuses.push(res.status);
        }
        // A limit of 3 a minute: 7 attempts span at most two windows, so at most 6 reach the password check.
        expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(6);
        expect(statuses).toContain(429);
      } finally {
        await close();
      }
    });
  });

  describe('pagination links and the Host header', () => {
    it('builds next and previous from PUBLIC_URL, whatever Host or X-Forwarded-Host say', async () => {
      const other = await createTestApp({
        config: testConfig({ PUBLIC_URL: 'https://registry.example.org', TRUST_PROXY: '1' }),
      });
      try {
        const owner = await createRegistrant(other);
        for (let i = 0; i < 3; i++) {
          await request(other.getHttpServer())
            .post('/api/samples/')
            .set(owner.auth)
            .send({ registry_code: owner.code, name: `p${i}`, object_type: 'Core', latitude: 1, longitude: 1 })
            .expect(201);
        }
        const res = await request(other.getHttpServer())
          .get(`/api/samples/?registry_code=${owner.code}&page_size=1&page=2`)
          .set('Host', 'evil.example')
          .set('X-Forwarded-Host', 'evil2.example')
          .expect(200);
        expect(res.body.next).toBe(
          `https://registry.example.org/api/samples/?registry_code=${owner.code}&page_size=1&page=3`,
        );
        expect(res.body.previous).toBe(
          `https://registry.example.org/api/samples/?registry_code=${owner.code}&page_size=1&page=1`,
        );
        // A Host that is no host name is ignored as well, when PUBLIC_URL decides.
        await request(other.getHttpServer()).get('/api/samples/?page=2&page_size=1').set('Host', 'a b').expect(200);
      } finally {
        await other.close();
      }
    });

    it('answers a Host that is no host name with 400, never 500, when the links follow the request', async () => {
      const res = await http().get('/api/samples/?page=2&page_size=1').set('Host', 'a b');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: expect.any(String), errors: { Host: [expect.any(String)] } });
    });
  });

  describe('landing pages of samples that were never public', () => {
    it('answers a deactivated draft like an unknown IGSN (404), a withdrawn public sample 410', async () => {
      const owner = await createRegistrant(app);
      const draft = (await register(owner, owner.code, { is_draft: true, name: 'Secret draft' }).expect(201)).body.data;
      await http().post(`/api/samples/${draft.igsn}/deactivate/`).set(owner.auth).send({ reason: 'other' }).expect(200);
      const suffix = draft.igsn.split('/').pop();
      const page = await http().get(`/samples/${suffix}`).expect(404);
      const unknown = await http().get(`/samples/${owner.code}ZZZZ`).expect(404);
      expect(page.text).toBe(unknown.text);
      expect(page.text).not.toContain('Secret draft');

      const published = (await register(owner, owner.code).expect(201)).body.data;
      await http()
        .post(`/api/samples/${published.igsn}/deactivate/`)
        .set(owner.auth)
        .send({ reason: 'other' })
        .expect(200);
      await http()
        .get(`/samples/${published.igsn.split('/').pop()}`)
        .expect(410);
    });
  });

  describe('login', () => {
    it('re-hashes a password made with another cost at the next successful login', async () => {
      const user = await createUserWithToken(app);
      const older = await bcrypt.hash(TEST_PASSWORD, 5); // the test config's cost is 4
      await dataSource.query('UPDATE registry_user SET password_hash = $2 WHERE id = $1', [user.userId, older]);
      await http().post('/api/auth/login/').send({ email: user.email, password: 'wrong-password' }).expect(401);
      expect(await storedRounds(user.userId)).toBe(5);
      await http().post('/api/auth/login/').send({ email: user.email, password: TEST_PASSWORD }).expect(200);
      expect(await storedRounds(user.userId)).toBe(4);
      await http().post('/api/auth/login/').send({ email: user.email, password: TEST_PASSWORD }).expect(200);
    });

    async function storedRounds(userId: number): Promise<number> {
      const [row] = await dataSource.query<{ password_hash: string }[]>(
        'SELECT password_hash FROM registry_user WHERE id = $1',
        [userId],
      );
      return bcrypt.getRounds(row.password_hash);
    }
  });

  describe('OpenID Connect exchange', () => {
    const audience = 'registry-client';
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let jwks: Server;
    let jwksFetches = 0;
    let issuer: string;

    beforeAll(async () => {
      jwks = createServer((_req, res) => {
        jwksFetches += 1;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'key-1', use: 'sig' }] }));
      });
      await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
      issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise((resolve) => jwks.close(resolve));
    });

    const sign = (claims: Record<string, unknown>, keyid = 'key-1') =>
      jwt.sign(claims, privateKey, { algorithm: 'ES256', keyid, issuer, audience, expiresIn: 300 });

    async function connection(): Promise<string> {
      const name = `generic-${randomUUID().slice(0, 8)}`;
      // A JWKS URL of its own, so no other test's cached keys count.
      await app.get(ConnectionService).create({ name, issuer, audience, jwksUrl: `${issuer}/jwks/${name}` });
      return name;
    }

    it("does not take a generic issuer's sub as an ORCID iD", async () => {
      const orcid = '0000-0002-1694-233X';
      await dataSource.query('UPDATE registry_user SET orcid = NULL WHERE orcid = $1', [orcid]);
      const alice = await createUserWithToken(app, { orcid });
      const name = await connection();
      const res = await http()
        .post(`/api/auth/token/${name}/`)
        .send({ token: sign({ sub: orcid }) });
      expect(res.status).toBe(401);
      // The same issuer still signs Alice in by her (verified) email.
      await http()
        .post(`/api/auth/token/${name}/`)
        .send({ token: sign({ sub: orcid, email: alice.email }) })
        .expect(200);
    });

    it('fetches the JWKS once for ten id_tokens naming unknown keys', async () => {
      const user = await createUserWithToken(app);
      const name = await connection();
      const before = jwksFetches;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          http()
            .post(`/api/auth/token/${name}/`)
            .send({ token: sign({ email: user.email }, `unknown-${i}`) }),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(10).fill(401));
      for (let i = 0; i < 10; i++) {
        await http()
          .post(`/api/auth/token/${name}/`)
          .send({ token: sign({ email: user.email }, `later-${i}`) })
          .expect(401);
      }
      expect(jwksFetches - before).toBe(1);
      await http()
        .post(`/api/auth/token/${name}/`)
        .send({ token: sign({ email: user.email }) })
        .expect(200);
    });
  });
});
