import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ManualClock, createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';
import { testConfig } from './support/test-environment';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;

const METRICS_TOKEN = 'list-cache-metrics-token-0123456789';

/**
 * Issue 23, public list: anonymous list pages kept LIST_CACHE_SECONDS in the API process (within
 * the `public, max-age` they already carry), never answers to a token; time moves on a test clock.
 */
describe('anonymous list cache', () => {
  let app: INestApplication;
  let owner: Registrant;
  const clock = new ManualClock();
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    app = await createTestApp({
      clock,
      // A fixed public URL: the key (and the links) would otherwise follow the Host header, whose port
      // supertest changes with every request.
      config: testConfig({ LIST_CACHE_SECONDS: '5', PUBLIC_URL: 'https://registry.example.org', METRICS_TOKEN }),
    });
    owner = await createRegistrant(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const register = async (extra: Record<string, unknown> = {}) =>
    (
      await http()
        .post('/api/samples/')
        .set(owner.auth)
        .send({
          registry_code: owner.code,
          name: `cached-${randomUUID().slice(0, 8)}`,
          object_type: 'Core',
          latitude: 41.5,
          longitude: -72.8,
          ...extra,
        })
        .expect(201)
    ).body.data as { igsn: string };

  /** This owner's samples only: other suites write to the same database. */
  const listPath = (extra = '') => `/api/samples/?registry_code=${owner.code}${extra}`;
  const igsnsOf = (body: { data: { igsn: string }[] }) => body.data.map((sample) => sample.igsn).sort();

  /** list_cache_requests_total by result, as /metrics says now. */
  const cacheCounts = async (): Promise<Record<string, number>> => {
    const text = (await http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200)).text;
    const counts: Record<string, number> = { hit: 0, joined: 0, miss: 0 };
    for (const [, result, value] of text.matchAll(/^list_cache_requests_total\{result="(\w+)"\} (\S+)$/gm)) {
      counts[result] = Number(value);
    }
    return counts;
  };

  it('answers a repeat within LIST_CACHE_SECONDS from the kept page, byte for byte, until the time has passed', async () => {
    const first = await register();
    const miss = await http().get(listPath('&page_size=10')).expect(200);
    expect(igsnsOf(miss.body)).toEqual([first.igsn]);
    expect(miss.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(miss.headers['cache-control']).toBe('public, max-age=60');

    const second = await register();
    const before = await cacheCounts();
    clock.advance(4.9);
    const hit = await http().get(listPath('&page_size=10')).expect(200);
    expect((await cacheCounts()).hit).toBe(before.hit + 1);
    // The page as kept: not the sample registered since, the same bytes, tag and headers.
    expect(hit.text).toBe(miss.text);
    for (const header of ['etag', 'cache-control', 'vary', 'content-type', 'content-length']) {
      expect(hit.headers[header]).toBe(miss.headers[header]);
    }

    // With a token the page is the caller's own, searched now, and never kept for anyone else.
    const mine = await http().get(listPath('&page_size=10&scope=public')).set(owner.auth).expect(200);
    expect(igsnsOf(mine.body)).toEqual([first.igsn, second.igsn].sort());
    expect(mine.headers['cache-control']).toBe('private, no-cache');
    const personal = await http().get(listPath('&page_size=10')).set(owner.auth).expect(200);
    expect(igsnsOf(personal.body)).toEqual([first.igsn, second.igsn].sort());

    // Another URL is another page: not answered from this one.
    const other = await http().get(listPath('&page_size=11')).expect(200);
    expect(igsnsOf(other.body)).toEqual([first.igsn, second.igsn].sort());

    clock.advance(0.1);
    const later = await http().get(listPath('&page_size=10')).expect(200);
    expect(igsnsOf(later.body)).toEqual([first.igsn, second.igsn].sort());
    expect(later.headers.etag).not.toBe(miss.headers.etag);
  });

  it('answers a kept page with 304 to its current If-None-Match, with the same validators', async () => {
    await register();
    clock.advance(10);
    const miss = await http().get(listPath()).expect(200);
    const before = await cacheCounts();
    const notModified = await http().get(listPath()).set('If-None-Match', miss.headers.etag).expect(304);
    expect((await cacheCounts()).hit).toBe(before.hit + 1);
    expect(notModified.text ?? '').toBe('');
    expect(notModified.headers.etag).toBe(miss.headers.etag);
    expect(notModified.headers['cache-control']).toBe('public, max-age=60');
    expect(notModified.headers.vary).toBe(miss.headers.vary);
    expect(notModified.headers.vary?.toLowerCase()).toContain('authorization');
    // Another tag: the kept body.
    const full = await http().get(listPath()).set('If-None-Match', '"another"').expect(200);
    expect(full.text).toBe(miss.text);
  });

  it('never shows a draft to anonymous callers, kept or not: the page and its tag stay as they were', async () => {
    clock.advance(10);
    const before = await http().get(listPath()).expect(200);
    const draft = await register({ is_draft: true });
    clock.advance(10);
    const after = await http().get(listPath()).expect(200);
    expect(igsnsOf(after.body)).not.toContain(draft.igsn);
    expect(after.text).toBe(before.text);
    expect(after.headers.etag).toBe(before.headers.etag);
    // Its owner sees it at once, cache or not.
    const mine = await http().get(listPath('&is_draft=true')).set(owner.auth).expect(200);
    expect(igsnsOf(mine.body)).toEqual([draft.igsn]);
  });

  it('refuses a bad parameter with a 400 every time, and keeps no error', async () => {
    const before = await cacheCounts();
    for (let i = 0; i < 2; i++) {
      const refused = await http().get(listPath('&page=0')).expect(400);
      expect(refused.body.errors).toHaveProperty('page');
      expect(refused.headers.etag).toBeUndefined();
    }
    const after = await cacheCounts();
    expect(after.miss).toBe(before.miss + 2);
    expect(after.hit).toBe(before.hit);
  });

  it('searches text every time (q, search, name, igsn): such pages are never kept', async () => {
    const tag = `txt${randomUUID().slice(0, 8)}`;
    clock.advance(10);
    await register({ name: `${tag}-1` });
    for (const query of [`&q=${tag}`, `&search=${tag}`, `&name=${tag}`]) {
      expect(igsnsOf((await http().get(listPath(query)).expect(200)).body)).toHaveLength(1);
    }
    const before = await cacheCounts();
    await register({ name: `${tag}-2` });
    for (const query of [`&q=${tag}`, `&search=${tag}`, `&name=${tag}`]) {
      // Within the window, yet the second sample is there: searched again, and not counted by the cache.
      expect(igsnsOf((await http().get(listPath(query)).expect(200)).body)).toHaveLength(2);
    }
    expect(await cacheCounts()).toEqual(before);
  });
});
