import { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { TEST_PASSWORD, createUserWithToken, uniqueOrcid } from './support/auth';
import { FakeOpenIdProvider } from './support/fake-openid-provider';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

const bareOrcid = () => uniqueOrcid().replace('https://orcid.org/', '');

/** The Set-Cookie lines of a response, by cookie name. */
function setCookies(res: request.Response): Map<string, string> {
  const lines = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  return new Map(lines.map((line) => [line.split('=')[0], line]));
}

/** `name=value` of a Set-Cookie line, for a Cookie header. */
function cookiePair(line: string | undefined): string {
  if (!line) throw new Error('cookie not set');
  return line.split(';')[0];
}

/** The hidden CSRF field of the first form of a page. */
function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF field on the page');
  return match[1];
}

describe('pages for people', () => {
  let app: INestApplication;
  let baseUrl: string;
  const provider = new FakeOpenIdProvider();
  const http = () => request(baseUrl);

  beforeAll(async () => {
    await provider.start();
    app = await createTestApp({ config: testConfig(provider.environment) });
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await provider.stop();
  });

  /**
   * Signs in with the fake ORCID as a browser would, following the redirects by hand; the session
   * cookie (`name=value`).
   */
  async function orcidSignIn(options: { cookie?: string } = {}): Promise<{ cookie: string; location: string }> {
    const start = await http()
      .get('/account/sign-in/orcid?next=%2Faccount%2Frequests')
      .set('Cookie', options.cookie ?? '')
      .expect(303);
    const flow = cookiePair(setCookies(start).get('sr_orcid_flow'));
    const authorize = new URL(start.headers.location);
    expect(authorize.origin).toBe(provider.issuer);
    const decided = await request(provider.issuer)
      .post('/oauth/decide')
      .type('form')
      .send({ ...Object.fromEntries(authorize.searchParams), decision: 'authorize' })
      .expect(302);
    const callback = new URL(decided.headers.location);
    const done = await http()
      .get(`${callback.pathname}${callback.search}`)
      .set('Cookie', [flow, options.cookie ?? ''].filter(Boolean).join('; '));
    if (done.status !== 303) throw new Error(`callback answered ${done.status}: ${done.text.slice(0, 500)}`);
    const session = setCookies(done).get('sr_session');
    return {
      cookie: session ? cookiePair(session) : (options.cookie ?? ''),
      location: done.headers.location,
    };
  }

  describe('over HTTP', () => {
    it('serves the sign-in page under a strict CSP, with a pre-session cookie its form is bound to', async () => {
      const res = await http().get('/account/sign-in').expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).not.toContain('unsafe-inline');
      const pre = setCookies(res).get('sr_presession') as string;
      expect(pre).toMatch(/HttpOnly/);
      expect(pre).toMatch(/SameSite=Lax/);
      expect(pre).not.toMatch(/Secure/); // NODE_ENV=test
      expect(res.text).toContain('Sign in with ORCID');
      const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(res.text)?.[1] as string;
      const css = await http().get(stylesheet).expect(200);
      expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
      expect(css.headers['cache-control']).toContain('immutable');
      await http().get('/assets/site-old.css').expect(404);
    });

    it("signs in with email and password only with the form's CSRF token, and says so otherwise", async () => {
      const user = await createUserWithToken(app);
      const page = await http().get('/account/sign-in').expect(200);
      const pre = cookiePair(setCookies(page).get('sr_presession'));
      const form = { email: user.email, password: TEST_PASSWORD };

      const forged = await http().post('/account/sign-in').set('Cookie', pre).type('form').send(form).expect(403);
      expect(forged.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(forged.text).toContain('This form did not come from this site');
      expect(setCookies(forged).has('sr_session')).toBe(false);
      // A token of another browser's pre-session is worthless here.
      const other = await http().get('/account/sign-in').expect(200);
      await http()
        .post('/account/sign-in')
        .set('Cookie', pre)
        .type('form')
        .send({ ...form, csrf: csrfOf(other.text) })
        .expect(403);

      const wrong = await http()
        .post('/account/sign-in')
        .set('Cookie', pre)
        .type('form')
        .send({ ...form, password: 'not-the-password', csrf: csrfOf(page.text) })
        .expect(401);
      expect(wrong.text).toContain('Invalid email or password.');
      expect(wrong.text).toContain(`value="${user.email}"`);

      const signedIn = await http()
        .post('/account/sign-in?next=%2Faccount%2Frequests')
        .set('Cookie', pre)
        .type('form')
        .send({ ...form, csrf: csrfOf(page.text) })
        .expect(303);
      expect(signedIn.headers.location).toBe('/account/requests');
      const session = setCookies(signedIn).get('sr_session') as string;
      expect(session).toMatch(/HttpOnly/);
      expect(session).toMatch(/SameSite=Lax/);
      expect(session).toMatch(/Max-Age=1209\d{3}/); // the session pair's 14 days
      const cookie = cookiePair(session);
      const settings = await http().get('/account/developer-settings').set('Cookie', cookie).expect(200);
      expect(settings.text).toContain('Browser, signed in with a password');
      expect(settings.text).toContain('(this browser)');

      // The cookie is nothing to the JSON API, nor to the pages reached through /api/.
      await http().get('/api/users/me/').set('Cookie', cookie).expect(401);
      await http().get('/api/auth/sessions/').set('Cookie', cookie).expect(401);
      const viaApi = await http().get('/api/public-pages/account/developer-settings').set('Cookie', cookie);
      expect(viaApi.status).toBe(303);
      expect(viaApi.headers.location).toMatch(/^\/account\/sign-in\?next=/);
    });

    it('redirects to sign-in and back, and answers unknown pages and bad form bodies with pages', async () => {
      const res = await http().get('/account/developer-settings').expect(303);
      expect(res.headers.location).toBe('/account/sign-in?next=%2Faccount%2Fdeveloper-settings');
      for (const next of ['https://evil.example/', '//evil.example/x', '/api/users/me/', 'javascript:alert(1)']) {
        const page = await http()
          .get(`/account/sign-in?next=${encodeURIComponent(next)}`)
          .expect(200);
        expect(page.text).toContain('action="/account/sign-in?next=%2Faccount%2Fdeveloper-settings"');
      }
      const missing = await http().get('/account/no-such-page').expect(404);
      expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(missing.text).toContain('<h1>Page not found</h1>');
      await http().post('/staff/whatever').type('form').send({}).expect(403);

      const { cookie } = await orcidSignIn();
      for (const done of ['constructor', '__proto__', 'nonsense']) {
        const settings = await http().get(`/account/developer-settings?done=${done}`).set('Cookie', cookie).expect(200);
        expect(settings.text).not.toContain('class="notice"');
      }
      const page = await http().get('/account/requests').set('Cookie', cookie).expect(200);
      const csrf = csrfOf(page.text);
      const tooLong = await http()
        .post('/account/requests/upload-permission')
        .set('Cookie', cookie)
        .type('form')
        .send({ csrf, reason: 'x'.repeat(2001) })
        .expect(400);
      expect(tooLong.text).toContain('reason:');
      const unknown = await http()
        .post('/account/requests/upload-permission')
        .set('Cookie', cookie)
        .type('form')
        .send({ csrf, reason: 'ok', admin: '1' })
        .expect(400);
      expect(unknown.text).toContain('admin: This field is not allowed.');
      await http()
        .post('/account/requests/upload-permission')
        .set('Cookie', cookie)
        .set('Content-Type', 'text/plain')
        .send('reason=ok')
        .expect(415);
      const notStaff = await http().get('/staff/requests').set('Cookie', cookie).expect(403);
      expect(notStaff.text).toContain('This page is for curators (staff).');
    });

    it('creates an account on first ORCID sign-in and finds it later; a CLI account with that iD is never duplicated', async () => {
      const orcid = bareOrcid();
      // A family name of this test's own: other suites name collectors "Marie Tharp" alone, which must
      // keep matching one individual in the shared database.
      const family = `Tharp${orcid.slice(-4)}`;
      provider.nextIdentity = { sub: orcid, given_name: 'Marie', family_name: family };
      const first = await orcidSignIn();
      expect(first.location).toBe('/account/requests');
      const accounts = app.get(AccountsService);
      const account = await accounts.findByOrcid(orcid);
      expect(account).toMatchObject({ orcid, email: null, uploadPermissionStatus: 0, isStaff: false });
      expect((await accounts.requireUser(account!.id)).individual?.label).toBe(`Marie ${family}`);
      const again = await orcidSignIn();
      expect((await accounts.findByOrcid(orcid))?.id).toBe(account!.id);
      const settings = await http().get('/account/developer-settings').set('Cookie', again.cookie).expect(200);
      expect(settings.text).toContain(`https://orcid.org/${orcid}`);
      expect(settings.text.match(/Browser, signed in with ORCID/g)).toHaveLength(2);

      const cliOrcid = bareOrcid();
      const cli = await createUserWithToken(app, { orcid: cliOrcid });
      provider.nextIdentity = { sub: cliOrcid, given_name: 'Someone', family_name: 'Else' };
      const linked = await orcidSignIn();
      const page = await http().get('/account/developer-settings').set('Cookie', linked.cookie).expect(200);
      expect(page.text).toContain(cli.email);
      expect((await accounts.findByOrcid(cliOrcid))?.id).toBe(cli.userId);
    });

    it('links an ORCID iD to an account signed in with its password, once', async () => {
      const user = await createUserWithToken(app);
      const page = await http().get('/account/sign-in').expect(200);
      const pre = cookiePair(setCookies(page).get('sr_presession'));
      const signedIn = await http()
        .post('/account/sign-in')
        .set('Cookie', pre)
        .type('form')
        .send({ email: user.email, password: TEST_PASSWORD, csrf: csrfOf(page.text) })
        .expect(303);
      const cookie = cookiePair(setCookies(signedIn).get('sr_session'));
      const orcid = bareOrcid();
      provider.nextIdentity = { sub: orcid };
      const linked = await orcidSignIn({ cookie });
      expect(linked.location).toBe('/account/developer-settings?done=orcid-linked');
      expect((await app.get(AccountsService).findByOrcid(orcid))?.id).toBe(user.userId);
      // Another iD for the same account: refused.
      provider.nextIdentity = { sub: bareOrcid() };
      await expect(orcidSignIn({ cookie })).rejects.toThrow('callback answered 409');
    });

    it('refuses a callback whose state, flow cookie, code or nonce is not the one this browser started', async () => {
      provider.nextIdentity = { sub: bareOrcid() };
      const start = await http().get('/account/sign-in/orcid').expect(303);
      const flow = cookiePair(setCookies(start).get('sr_orcid_flow'));
      const authorize = new URL(start.headers.location);
      expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: provider.clientId,
        scope: 'openid',
        code_challenge_method: 'S256',
        redirect_uri: `${baseUrl}/account/sign-in/orcid/callback`,
      });
      const decide = async () =>
        new URL(
          (
            await request(provider.issuer)
              .post('/oauth/decide')
              .type('form')
              .send({ ...Object.fromEntries(authorize.searchParams), decision: 'authorize' })
          ).headers.location,
        );
      const callback = await decide();
      const code = callback.searchParams.get('code') as string;
      const state = callback.searchParams.get('state') as string;
      const path = (params: Record<string, string>) =>
        `/account/sign-in/orcid/callback?${new URLSearchParams(params).toString()}`;

      // Another browser (no flow cookie), or a state of another flow: refused before the code is used.
      const noFlow = await http().get(path({ code, state })).expect(400);
      expect(noFlow.text).toContain('did not start here');
      await http()
        .get(path({ code, state: 'other' }))
        .set('Cookie', flow)
        .expect(400);
      expect(provider.tokenRequests.filter((r) => !r.ok)).toHaveLength(0);
      // The genuine callback works once; its code cannot be used again.
      const ok = await http().get(path({ code, state })).set('Cookie', flow).expect(303);
      expect(setCookies(ok).has('sr_session')).toBe(true);
      expect(setCookies(ok).get('sr_orcid_flow')).toMatch(/Expires=Thu, 01 Jan 1970/);
      await http().get(path({ code, state })).set('Cookie', flow).expect(401);
      expect(provider.tokenRequests.at(-1)).toEqual({ ok: false, error: 'invalid_grant' });

      // An id_token whose nonce is not this flow's is refused.
      const second = await decide();
      provider.forgeNonce = 'someone-elses-nonce';
      const forged = await http()
        .get(path(Object.fromEntries(second.searchParams)))
        .set('Cookie', flow)
        .expect(401);
      expect(setCookies(forged).has('sr_session')).toBe(false);
      // Denied at the provider.
      const denied = await http()
        .get(path({ error: 'access_denied', state }))
        .set('Cookie', flow)
        .expect(401);
      expect(denied.text).toContain('You did not allow the registry to read your ORCID iD.');
    });

    it('makes the cookies Secure and __Host- prefixed when SESSION_COOKIE_SECURE is on', async () => {
      const secure = await createTestApp({
        config: testConfig({ ...provider.environment, SESSION_COOKIE_SECURE: 'true' }),
      });
      try {
        const page = await request(secure.getHttpServer()).get('/account/sign-in').expect(200);
        const line = setCookies(page).get('__Host-sr_presession') as string;
        expect(line).toMatch(/; Secure/);
        expect(line).toMatch(/; Path=\//);
        expect(line).not.toMatch(/Domain=/);
      } finally {
        await secure.close();
      }
    });
  });
});
