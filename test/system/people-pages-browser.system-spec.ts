import { INestApplication } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, Page } from 'puppeteer-core';
import request from 'supertest';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { TEST_PASSWORD, uniqueOrcid, uniqueRegistryCode } from '../support/auth';
import { launchBrowser } from '../support/browser';
import { FakeOpenIdProvider } from '../support/fake-openid-provider';
import { createTestApp } from '../support/test-app';
import { testConfig } from '../support/test-environment';

/**
 * The screenshots of each page the docs show (docs/people-and-pages.md). Written there with
 * UPDATE_SCREENSHOTS=1; otherwise under test-output/, so an ordinary run leaves the tree clean.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(__dirname, '..', '..', 'docs', 'screenshots')
  : join(__dirname, '..', '..', 'test-output', 'screenshots');

const bareOrcid = () => uniqueOrcid().replace('https://orcid.org/', '');

/**
 * The whole path a researcher and a curator take, in headless Chromium against the real services,
 * with the OpenID provider inside the test process (the HTTP-level rules are in
 * test/people-pages.e2e-spec.ts).
 */
describe('pages for people in a real browser', () => {
  let app: INestApplication;
  let baseUrl: string;
  const provider = new FakeOpenIdProvider();
  const http = () => request(baseUrl);
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;
  const staffEmail = `curator-${Date.now().toString(36)}@example.org`;
  /** Script errors and CSP violations of every page the walk opens. */
  const problems: string[] = [];

  beforeAll(async () => {
    await provider.start();
    app = await createTestApp({ config: testConfig(provider.environment) });
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
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
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    attacker?.closeAllConnections();
    await new Promise((resolve) => (attacker ? attacker.close(resolve) : resolve(undefined)));
    await app?.close();
    await provider.stop();
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
