import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

/** Issue 23 §5: strong validators and cache headers per visibility on public reads. */
describe('HTTP caching of public reads', () => {
  let app: INestApplication;
  let owner: Registrant;
  const http = () => request(app.getHttpServer());
  const tag = `cache${randomUUID().slice(0, 8)}`;

  const register = async (body: Record<string, unknown>) =>
    (
      await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({ registry_code: owner.code, object_type: 'Core', latitude: 41.5, longitude: -72.8, ...body })
        .expect(201)
    ).body.data as { igsn: string };

  beforeAll(async () => {
    // A fixed public URL: links in the bodies (and so the tags) would otherwise follow the Host header,
    // which supertest changes with every request (a new port each time).
    app = await createTestApp({
      config: testConfig({ HTTP_CACHE_MAX_AGE_SECONDS: '90', PUBLIC_URL: 'https://registry.example.org' }),
    });
    owner = await createRegistrant(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const varyOf = (headers: Record<string, string>) =>
    (headers.vary ?? '')
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean);

  it('gives anonymous callers a strong ETag and public caching; If-None-Match answers 304 with no body', async () => {
    const sample = await register({ name: `${tag}-public` });
    const first = await http().get(`/api/samples/${sample.igsn}/`).expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/); // strong: no W/
    expect(first.headers['cache-control']).toBe('public, max-age=90');
    expect(varyOf(first.headers)).toEqual(expect.arrayContaining(['accept', 'authorization']));

    const again = await http().get(`/api/samples/${sample.igsn}/`).set('If-None-Match', etag).expect(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(etag);
    await http().get(`/api/samples/${sample.igsn}/`).set('If-None-Match', `"other", ${etag}`).expect(304);

    // Another representation has its own tag.
    const xml = await http().get(`/api/samples/${sample.igsn}/?format=datacite`).expect(200);
    expect(xml.headers.etag).not.toBe(etag);
    await http().get(`/api/samples/${sample.igsn}/?format=datacite`).set('If-None-Match', etag).expect(200);

    // A change makes the old tag stale.
    await http().patch(`/api/samples/${sample.igsn}/`).set(owner.auth).send({ locality: 'Moved' }).expect(200);
    const changed = await http().get(`/api/samples/${sample.igsn}/`).set('If-None-Match', etag).expect(200);
    expect(changed.body.data.locality).toBe('Moved');
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('keeps what a token sees private, and never lets a shared cache store a sample that is not public', async () => {
    const published = await register({ name: `${tag}-mine` });
    const withToken = await http().get(`/api/samples/${published.igsn}/`).set(owner.auth).expect(200);
    expect(withToken.headers['cache-control']).toBe('private, no-cache');
    expect(withToken.body.data.can_edit).toBe(true);
    // The anonymous answer differs (can_edit false), so it has a different tag.
    const anonymous = await http().get(`/api/samples/${published.igsn}/`).expect(200);
    expect(anonymous.headers.etag).not.toBe(withToken.headers.etag);
    await http()
      .get(`/api/samples/${published.igsn}/`)
      .set(owner.auth)
      .set('If-None-Match', withToken.headers.etag)
      .expect(304);

    const draft = await register({ name: `${tag}-draft`, is_draft: true });
    const own = await http().get(`/api/samples/${draft.igsn}/`).set(owner.auth).expect(200);
    expect(own.headers['cache-control']).toBe('private, no-store');
    expect(own.headers.etag).toBeUndefined();
    const refused = await http().get(`/api/samples/${draft.igsn}/`).expect(401);
    expect(refused.headers['cache-control'] ?? '').not.toContain('public');
  });

  it('caches list pages by their content: a new matching sample changes the tag', async () => {
    await register({ name: `${tag}-list-1` });
    const url = `/api/samples/?q=${tag}-list`;
    const first = await http().get(url).expect(200);
    expect(first.body.count).toBe(1);
    expect(first.headers['cache-control']).toBe('public, max-age=90');
    const etag = first.headers.etag;
    await http().get(url).set('If-None-Match', etag).expect(304);

    await register({ name: `${tag}-list-2` });
    const second = await http().get(url).set('If-None-Match', etag).expect(200);
    expect(second.body.count).toBe(2);

    const mine = await http().get(url).set(owner.auth).expect(200);
    expect(mine.headers['cache-control']).toBe('private, no-cache');
    expect(mine.headers.etag).not.toBe(second.headers.etag);
  });

  it('validates landing pages and the sitemap the same way', async () => {
    const sample = await register({ name: `${tag}-page` });
    const path = `/samples/${sample.igsn}`;
    const page = await http().get(path).expect(200);
    expect(page.headers['cache-control']).toBe('public, max-age=90');
    const etag = page.headers.etag;
    expect(etag).toMatch(/^"/);
    await http().get(path).set('If-None-Match', etag).expect(304);
    await http().patch(`/api/samples/${sample.igsn}/`).set(owner.auth).send({ locality: 'Elsewhere' }).expect(200);
    const changed = await http().get(path).set('If-None-Match', etag).expect(200);
    expect(changed.text).toContain('Elsewhere');

    // The sitemap covers every public sample, and suites running beside this one register more: a
    // revalidation answers 200 only with another tag (the sitemap changed in between), else 304.
    let sitemapEtag = (await http().get('/sitemap.xml').expect(200)).headers.etag;
    for (let attempt = 1; ; attempt++) {
      expect(sitemapEtag).toMatch(/^"/);
      const again = await http().get('/sitemap.xml').set('If-None-Match', sitemapEtag);
      if (again.status === 304) break;
      expect(again.status).toBe(200);
      expect(again.headers.etag).not.toBe(sitemapEtag);
      expect(attempt).toBeLessThan(20);
      sitemapEtag = again.headers.etag;
    }
  });
});
