import { INestApplication } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser } from 'puppeteer-core';
import request from 'supertest';
import { createRegistrant } from '../support/auth';
import { launchBrowser } from '../support/browser';
import { createTestApp } from '../support/test-app';

interface SampleJson {
  igsn: string;
}

const OUTPUT = join(__dirname, '..', '..', 'test-output');
const suffixOf = (igsn: string) => igsn.split('/')[1];

/** A landing page as a person sees it, in headless Chromium: readable on a phone, no injected script runs. */
describe('landing pages in a real browser', () => {
  const evil = '<script>alert("x")</script></script><img src=x onerror=alert(1)>';
  let sample: SampleJson;
  let child: SampleJson;
  let browser: Browser;
  let baseUrl: string;
  // An app of its own that listens on a port (supertest keeps starting and stopping the other's).
  let served: INestApplication;

  beforeAll(async () => {
    served = await createTestApp();
    await served.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(served.getHttpServer().address() as AddressInfo).port}`;
    const owner = await createRegistrant(served);
    const register = async (body: Record<string, unknown>) =>
      (
        await request(served.getHttpServer())
          .post('/api/samples/')
          .set(owner.auth)
          .send({
            registry_code: owner.code,
            object_type: 'Individual sample',
            latitude: 41.5,
            longitude: -72.8,
            ...body,
          })
          .expect(201)
      ).body.data as SampleJson;
    const parent = await register({ name: 'Dredge 7' });
    sample = await register({
      name: `Pillow basalt ${evil}`,
      parent_sample: parent.igsn,
      sample_description: `Glassy rim ${evil}`,
      related_resources: [{ uri: 'https://example.org/report?a=1&b=2', description: 'Cruise report' }],
    });
    child = await register({ name: 'Split A', parent_sample: sample.igsn });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('renders the page readably on a phone, runs only its own script, and carries the JSON-LD', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs += 1;
      void dialog.dismiss();
    });
    await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const response = await page.goto(`${baseUrl}/samples/${suffixOf(sample.igsn).toLowerCase()}`, {
      waitUntil: 'load',
    });
    expect(response?.status()).toBe(200);

    // Evaluated in the page (a string: the test's TypeScript has no DOM types).
    const seen = (await page.evaluate(`({
      title: document.title,
      h1: document.querySelector('h1').textContent,
      headings: [...document.querySelectorAll('h2')].map((h) => h.textContent),
      jsonLd: document.querySelector('script[type="application/ld+json"]').textContent,
      copyVisible: !document.querySelector('button[data-copy]').hidden,
      downloads: [...document.querySelectorAll('#download-heading + ul a')].map((a) => a.textContent),
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      fontSize: getComputedStyle(document.body).fontSize,
      images: document.images.length,
    })`)) as {
      title: string;
      h1: string;
      headings: string[];
      jsonLd: string;
      copyVisible: boolean;
      downloads: string[];
      overflow: number;
      fontSize: string;
      images: number;
    };
    expect(seen.h1).toBe(`Pillow basalt ${evil}`);
    expect(seen.title).toContain(sample.igsn);
    expect(seen.headings).toEqual([
      'Cite this sample',
      'Details',
      'Parent and subsamples',
      'Related resources',
      'Download as',
    ]);
    expect(JSON.parse(seen.jsonLd)).toMatchObject({
      '@type': 'CreativeWork',
      '@id': `https://doi.org/${sample.igsn}`,
      name: `Pillow basalt ${evil}`,
      url: `${baseUrl}/samples/${suffixOf(sample.igsn)}`,
    });
    // The copy script ran (its CSP hash matched); nothing injected ran or loaded.
    expect(seen.copyVisible).toBe(true);
    expect(seen.downloads).toEqual(['JSON', 'JSON-LD (schema.org)', 'DataCite XML', 'CSV']);
    expect(seen.images).toBe(0);
    expect(dialogs).toBe(0);
    expect(problems).toEqual([]);
    // Readable on a phone: no sideways scrolling, 16 px body text.
    expect(seen.overflow).toBeLessThanOrEqual(0);
    expect(seen.fontSize).toBe('16px');

    // Following a family link lands on the child's page.
    await Promise.all([page.waitForNavigation(), page.click(`a[href="/samples/${suffixOf(child.igsn)}"]`)]);
    expect(await page.evaluate("document.querySelector('h1').textContent")).toBe('Split A');
    await page.goBack();

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'landing-page-phone.png'), fullPage: true });
    await page.setViewport({ width: 1280, height: 900 });
    await page.screenshot({ path: join(OUTPUT, 'landing-page-desktop.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
