import { INestApplication } from '@nestjs/common';
import { existsSync, mkdirSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import request from 'supertest';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { TEST_PASSWORD, createUserWithToken, uniqueOrcid, uniqueRegistryCode } from './support/auth';
import { FakeOpenIdProvider } from './support/fake-openid-provider';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

/** Debian's chromium (scripts/ensure-services.sh installs it), or CHROMIUM_PATH. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * The screenshots of each page the docs show (docs/people-and-pages.md). Written there with
 * UPDATE_SCREENSHOTS=1; otherwise under test-output/, so an ordinary run leaves the tree clean.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(__dirname, '..', 'docs', 'screenshots')
  : join(__dirname, '..', 'test-output', 'screenshots');

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
      provider.nextIdentity = { sub: orcid, given_name: 'Marie', family_name: 'Tharp' };
      const first = await orcidSignIn();
      expect(first.location).toBe('/account/requests');
      const accounts = app.get(AccountsService);
      const account = await accounts.findByOrcid(orcid);
      expect(account).toMatchObject({ orcid, email: null, uploadPermissionStatus: 0, isStaff: false });
      expect((await accounts.requireUser(account!.id)).individual?.label).toBe('Marie Tharp');
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

  describe('in a real browser', () => {
    let browser: Browser;
    let attacker: Server;
    let attackerUrl: string;
    const staffEmail = `curator-${Date.now().toString(36)}@example.org`;
    /** Script errors and CSP violations of every page the walk opens. */
    const problems: string[] = [];

    beforeAll(async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(`No Chromium at ${CHROMIUM}: run scripts/ensure-services.sh or set CHROMIUM_PATH.`);
      }
      mkdirSync(SCREENSHOTS, { recursive: true });
      await app.get(AccountsService).createUser({
        email: staffEmail,
        password: TEST_PASSWORD,
        name: 'Cora Curator',
        isStaff: true,
      });
      // Another site's page on the same host (a different port is the same "site" to SameSite):
      // it posts a form to the registry, which the browser sends with the session cookie.
      attacker = createServer((_req, res) => {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(`<!DOCTYPE html><html lang="en"><head><title>Win a prize</title></head><body>
<form id="f" method="post" action="${baseUrl}/account/developer-settings/revoke-all">
<input type="hidden" name="csrf" value="guessed"></form>
<script>document.getElementById('f').submit();</script></body></html>`);
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
      browser = await puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      attacker?.closeAllConnections();
      await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
    });

    async function newPage(): Promise<Page> {
      const context = await browser.createBrowserContext();
      await context.overridePermissions(baseUrl, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
      const page = await context.newPage();
      page.on('console', (message) => {
        // A page answered 4xx on purpose is logged as a failed load; CSP violations and script errors are not.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(`${page.url()}: ${message.text()}`);
        }
      });
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${String(error)}`));
      await page.setViewport({ width: 880, height: 700 });
      return page;
    }

    /** Clicks and waits for the page the click leads to. */
    async function follow(page: Page, selector: string): Promise<void> {
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(selector)]);
    }

    const textOf = (page: Page, selector: string) =>
      page.evaluate(`document.querySelector(${JSON.stringify(selector)}).textContent`) as Promise<string>;
    const mainText = (page: Page) => page.evaluate("document.querySelector('main').innerText") as Promise<string>;
    const path = (page: Page) => new URL(page.url()).pathname;

    async function shot(page: Page, name: string, fullPage = true): Promise<void> {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
    }

    /**
     * What a person using a keyboard or a screen reader meets: one h1, a language, every field with
     * a label, every button with a name, the skip link first in the tab order, nothing wider than
     * the screen.
     */
    async function checkPlainAndAccessible(page: Page): Promise<void> {
      const seen = (await page.evaluate(`({
        lang: document.documentElement.lang,
        h1: document.querySelectorAll('h1').length,
        unlabelled: [...document.querySelectorAll('input:not([type=hidden]), textarea, select')]
          .filter((field) => field.labels.length === 0).map((field) => field.name),
        nameless: [...document.querySelectorAll('button, a')]
          .filter((el) => !el.hidden && el.textContent.trim() === '').length,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        stylesheets: document.styleSheets.length,
        inlineStyles: document.querySelectorAll('style, [style]').length,
      })`)) as Record<string, unknown>;
      expect(seen).toEqual({
        lang: 'en',
        h1: 1,
        unlabelled: [],
        nameless: 0,
        overflow: 0,
        stylesheets: 1,
        inlineStyles: 0,
      });
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to the content');
      await page.evaluate('document.activeElement.blur()');
    }

    it('walks from nothing to a working token, and back: ORCID sign-in, API access request, staff approval, tokens, revoke all', async () => {
      const orcid = bareOrcid();
      const code = uniqueRegistryCode();
      provider.nextIdentity = { sub: orcid, given_name: 'Ada', family_name: 'Researcher' };

      // 1. A researcher with nothing but an ORCID iD signs in.
      const researcher = await newPage();
      await researcher.goto(`${baseUrl}/account/developer-settings`, { waitUntil: 'load' });
      expect(path(researcher)).toBe('/account/sign-in');
      await checkPlainAndAccessible(researcher);
      await shot(researcher, 'sign-in');
      await follow(researcher, 'a[href^="/account/sign-in/orcid"]');
      expect(researcher.url().startsWith(provider.issuer)).toBe(true);
      await follow(researcher, 'button[value="authorize"]');
      expect(path(researcher)).toBe('/account/developer-settings');
      let text = await mainText(researcher);
      expect(text).toContain(`https://orcid.org/${orcid}`);
      expect(text).toContain('Generating tokens needs upload permission');
      expect(await researcher.$('form[action="/account/developer-settings/tokens"]')).toBeNull();

      // 2. They ask for upload permission and a registry code.
      await follow(researcher, 'a[href="/account/requests"]');
      await checkPlainAndAccessible(researcher);
      await researcher.type('#access-reason', 'Cores of cruise AT42 for the Woods Hole core lab.');
      await follow(researcher, 'form[action="/account/requests/upload-permission"] button[type="submit"]');
      expect(await mainText(researcher)).toContain('Your request for upload permission was sent.');
      await researcher.type('#code', code.toLowerCase());
      await researcher.type('#code-reason', 'The AT42 cores, about 400 samples.');
      await follow(researcher, 'form[action="/account/requests/registry-code"] button[type="submit"]');
      text = await mainText(researcher);
      expect(text).toContain('Your request for a registry code was sent.');
      expect(text.match(/Waiting for a curator/g)).toHaveLength(2);
      await shot(researcher, 'my-requests-waiting');

      // 3. A curator, in a browser of their own, signs in with a password and approves both.
      const curator = await newPage();
      await curator.goto(`${baseUrl}/staff/requests`, { waitUntil: 'load' });
      expect(path(curator)).toBe('/account/sign-in');
      await curator.type('#email', staffEmail);
      await curator.type('#password', TEST_PASSWORD);
      await follow(curator, 'form[action^="/account/sign-in"] button[type="submit"]');
      expect(path(curator)).toBe('/staff/requests');
      await checkPlainAndAccessible(curator);
      const approve = async (title: string, message: string) => {
        const article = (await curator.evaluate(`[...document.querySelectorAll('article.request')]
          .find((a) => a.textContent.includes('Ada Researcher') && a.querySelector('h3').textContent === ${JSON.stringify(title)})
          .getAttribute('aria-labelledby').replace('pending-', '')`)) as string;
        await curator.type(`#message-${article}`, message);
        await follow(curator, `form[action$="/${article}/approve"] button:not(.danger)`);
        expect(await mainText(curator)).toContain('Approved. The requester has been notified.');
      };
      await shot(curator, 'staff-requests');
      await approve('Upload permission', 'Welcome to the registry.');
      await approve(`Registry code ${code}`, 'Yours.');

      // 4. The researcher sees the answers, then generates a token pair, shown once.
      await researcher.goto(`${baseUrl}/account/requests`, { waitUntil: 'load' });
      text = await mainText(researcher);
      expect(text.match(/Approved/g)).toHaveLength(2);
      expect(text).toContain('Welcome to the registry.');
      expect(text).toContain('Cora Curator');
      await shot(researcher, 'my-requests-approved');
      await follow(researcher, 'a[href="/account/developer-settings"]');
      await follow(researcher, 'form[action="/account/developer-settings/tokens"] button');
      text = await mainText(researcher);
      expect(text).toContain('Copy both tokens now: they cannot be shown again.');
      const firstAccess = await textOf(researcher, '#new-access');
      const refresh = await textOf(researcher, '#new-refresh');
      expect(refresh).not.toBe(firstAccess);
      await checkPlainAndAccessible(researcher);
      // The copy buttons work (the one script ran under the CSP).
      await researcher.click('button[data-copy="new-access"]');
      await researcher.waitForFunction("document.getElementById('new-access-status').textContent !== ''");
      expect(await textOf(researcher, '#new-access-status')).toBe('Copied.');
      expect(await researcher.evaluate('navigator.clipboard.readText()')).toBe(firstAccess);
      await shot(researcher, 'developer-settings-new-pair');
      await researcher.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
      expect(await researcher.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBe(0);
      await researcher.setViewport({ width: 880, height: 700 });
      // Shown once: the list shows the pair, never its tokens.
      await researcher.goto(`${baseUrl}/account/developer-settings`, { waitUntil: 'load' });
      expect(await researcher.content()).not.toContain(firstAccess);

      // 5. That access token registers a sample through the JSON API.
      const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
      const sample = await http()
        .post('/api/samples/')
        .set(bearer(firstAccess))
        .send({ registry_code: code, name: 'AT42-01', object_type: 'Core', latitude: 41.5, longitude: -70.7 })
        .expect(201);
      expect(sample.body.data.igsn).toContain(`/${code}`);

      // 6. Five more pairs: the sixth revokes the oldest, and the page says so.
      let lastAccess = firstAccess;
      for (let generated = 2; generated <= 6; generated++) {
        await follow(researcher, 'form[action="/account/developer-settings/tokens"] button');
        lastAccess = await textOf(researcher, '#new-access');
      }
      text = await mainText(researcher);
      expect(text).toContain('You had 5 active pairs, the most there may be: the oldest');
      expect(text).toContain('was revoked, and its tokens no longer work.');
      expect(text).toContain('5 of at most 5 active pairs');
      await shot(researcher, 'developer-settings-sixth-pair', false);
      await http().get('/api/users/me/').set(bearer(firstAccess)).expect(401);
      await http().get('/api/users/me/').set(bearer(lastAccess)).expect(200);

      // 7. Forged form posts change nothing: from another site's page, and with a tampered token.
      await researcher.goto(attackerUrl, { waitUntil: 'load' });
      await researcher.waitForFunction(`location.href.startsWith(${JSON.stringify(baseUrl)})`);
      expect(await mainText(researcher)).toContain('This form did not come from this site');
      await http().get('/api/users/me/').set(bearer(lastAccess)).expect(200);
      await researcher.goto(`${baseUrl}/account/developer-settings`, { waitUntil: 'load' });
      await researcher.evaluate(
        `document.querySelector('form[action="/account/developer-settings/revoke-all"] input[name=csrf]').value = 'tampered'`,
      );
      await follow(researcher, 'form[action="/account/developer-settings/revoke-all"] button');
      expect(await mainText(researcher)).toContain('This form did not come from this site');
      await shot(researcher, 'error-forged-form');
      await http().get('/api/users/me/').set(bearer(lastAccess)).expect(200);

      // 8. Revoke all: every developer token is refused at once; the browser session goes on.
      await researcher.goto(`${baseUrl}/account/developer-settings`, { waitUntil: 'load' });
      await follow(researcher, 'form[action="/account/developer-settings/revoke-all"] button');
      text = await mainText(researcher);
      expect(text).toContain('All your developer token pairs were revoked');
      expect(text).toContain('No active developer token pairs.');
      await http().get('/api/users/me/').set(bearer(lastAccess)).expect(401);
      await shot(researcher, 'developer-settings');

      // 9. The curator ends the researcher's... no: each person ends their own sessions. Sign out.
      await follow(researcher, 'nav form[action="/account/sign-out"] button');
      expect(path(researcher)).toBe('/account/sign-in');
      await researcher.goto(`${baseUrl}/account/developer-settings`, { waitUntil: 'load' });
      expect(path(researcher)).toBe('/account/sign-in');
      expect(problems).toEqual([]);
    }, 240_000);
  });
});
