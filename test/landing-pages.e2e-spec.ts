import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { SitemapService } from '../src/modules/landing-pages/sitemap.service';
import { createRegistrant } from './support/auth';
import { createTestApp } from './support/test-app';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
interface SampleJson {
  id: number;
  igsn: string;
  name: string;
}

const suffixOf = (igsn: string) => igsn.split('/')[1];
/** The paths of a sitemap's `<loc>`s (supertest serves each request on a new port). */
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1]).pathname);

describe('public landing pages and sitemap', () => {
  let app: INestApplication;
  let owner: Registrant;
  let parent: SampleJson;
  let sample: SampleJson;
  let child: SampleJson;
  const http = () => request(app.getHttpServer());
  const evil = '<script>alert("x")</script></script><img src=x onerror=alert(1)>';
  // Unique, so the collector is not matched to an individual another suite created.
  const collector = `Tharp${Date.now().toString(36)}`;

  const register = async (body: Record<string, unknown>) =>
    (
      await http()
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

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createRegistrant(app);
    parent = await register({ name: 'Dredge 7' });
    sample = await register({
      name: `Pillow basalt ${evil}`,
      parent_sample: parent.igsn,
      sample_description: `Glassy rim ${evil}`,
      general_material_type: 'Rock',
      country: 'US',
      locality: 'Atlantis Fracture Zone',
      sampling_start_date: '2024-06-01',
      collectors: [{ individual: { label: `Marie ${collector}`, fname: 'Marie', lname: collector } }],
      current_archive: { label: 'Core Repository' },
      related_resources: [{ uri: 'https://example.org/report?a=1&b=2', description: 'Cruise report' }],
    });
    child = await register({ name: 'Split A', parent_sample: sample.igsn });
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers HTML for a published sample by DOI form, suffix and any case, with the JSON-LD the API gives', async () => {
    const suffix = suffixOf(sample.igsn);
    for (const path of [sample.igsn, suffix, suffix.toLowerCase(), `${sample.igsn.toLowerCase()}/`]) {
      const res = await http().get(`/samples/${path}`).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    const html = (await http().get(`/samples/${suffix}`).expect(200)).text;
    expect(html).toContain('<h1>Pillow basalt &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    for (const fact of [
      'Individual sample',
      'Rock',
      'Latitude, longitude: 41.5, -72.8',
      'Atlantis Fracture Zone, United States',
      '2024-06-01',
      `Marie ${collector}`,
      'Core Repository',
      'href="https://example.org/report?a=1&amp;b=2"',
      `<a href="/samples/${suffixOf(parent.igsn)}">${parent.igsn}</a>`,
      `<a href="/samples/${suffixOf(child.igsn)}">${child.igsn}</a> — Split A`,
      `href="/api/samples/${suffix}/?format=datacite"`,
      `${collector}, Marie (${new Date().getUTCFullYear()}): Pillow basalt`,
    ]) {
      expect(html).toContain(fact);
    }
    const embedded = JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)![1]);
    const api = await http().get(`/api/samples/${suffix}/?format=jsonld`).expect(200);
    // Equal but for the host's port (supertest serves each request on a new one).
    const withoutPort = (document: { url: string }) => ({ ...document, url: new URL(document.url).pathname });
    expect(withoutPort(embedded)).toEqual(withoutPort(JSON.parse(api.text)));
    expect(new URL(embedded.url).pathname).toBe(`/samples/${suffix}`);
    expect(embedded.name).toBe(`Pillow basalt ${evil}`);
  });

  it('without PUBLIC_URL, gives every public address from the host the request came to', async () => {
    const suffix = suffixOf(sample.igsn);
    const host = 'mirror.example:8443';
    const address = `http://${host}/samples/${suffix}`;
    // X-Forwarded-* counts only behind a trusted proxy (TRUST_PROXY), which this app is not.
    const get = (path: string) => http().get(path).set('Host', host).set('X-Forwarded-Host', 'spoofed.example');
    const page = (await get(`/samples/${suffix}`).expect(200)).text;
    expect(page).toContain(`<link rel="canonical" href="${address}">`);
    const embedded = JSON.parse(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)![1]);
    expect(embedded.url).toBe(address);
    expect(JSON.parse((await get(`/api/samples/${suffix}/?format=jsonld`).expect(200)).text).url).toBe(address);
    const sitemap = (await get('/sitemap.xml').expect(200)).text;
    expect(sitemap).toContain(`<loc>${address}</loc>`);
    expect(sitemap).not.toContain('spoofed.example');
  });

  it('answers a 404 page for drafts, embargoed and unknown samples and a 410 page for deactivated ones', async () => {
    const draft = await register({ name: 'Draft core', is_draft: true });
    const embargoed = await register({ name: 'Embargoed core', publish_date: '2099-01-01T00:00:00Z' });
    for (const igsn of [draft.igsn, embargoed.igsn, `${owner.code}ZZZZZ`, 'not-an-igsn']) {
      const res = await http().get(`/samples/${igsn}`).expect(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<h1>Sample not found</h1>');
      expect(res.text).not.toContain('Draft core');
    }
    const gone = await register({ name: 'Withdrawn core' });
    await http().post(`/api/samples/${gone.igsn}/deactivate/`).set(owner.auth).send({ reason: 'other' }).expect(200);
    const res = await http()
      .get(`/samples/${suffixOf(gone.igsn)}`)
      .expect(410);
    expect(res.text).toContain('<h1>This sample has been withdrawn</h1>');
    expect(res.text).not.toContain('Withdrawn core');
  });

  it('lists public landing pages in the sitemap, and pages it through an index beyond the page size', async () => {
    const draft = await register({ name: 'Sitemap draft', is_draft: true });
    const sitemap = app.get(SitemapService);
    /** The landing-page paths of the sitemap file that would hold sample `id`. */
    const listedWith = async (id: number): Promise<{ root: string; urls: string[] }> => {
      const root = await http().get('/sitemap.xml').expect(200);
      expect(root.headers['content-type']).toBe('application/xml; charset=utf-8');
      if (root.text.includes('<urlset')) return { root: 'urlset', urls: locs(root.text) };
      const page = `/sitemaps/samples-${Math.floor(id / sitemap.pageSize)}.xml`;
      expect(locs(root.text)).toContain(page);
      return { root: 'index', urls: locs((await http().get(page).expect(200)).text) };
    };
    for (const shown of [parent, sample, child]) {
      const { urls } = await listedWith(shown.id);
      expect(urls).toContain(`/samples/${suffixOf(shown.igsn)}`);
      expect(urls.length).toBeLessThanOrEqual(50_000);
    }
    expect((await listedWith(draft.id)).urls).not.toContain(`/samples/${suffixOf(draft.igsn)}`);

    // With a page size of 2 there are more public samples than fit one file: an index of pages of
    // at most 2 URLs, each sample on the page of its id range.
    sitemap.pageSize = 2;
    try {
      for (const shown of [parent, sample, child]) {
        const { root, urls } = await listedWith(shown.id);
        expect(root).toBe('index');
        expect(urls).toContain(`/samples/${suffixOf(shown.igsn)}`);
        expect(urls.length).toBeLessThanOrEqual(2);
      }
    } finally {
      sitemap.pageSize = 50_000;
    }
    await http().get('/sitemaps/samples-999999999.xml').expect(404);
    await http().get('/sitemaps/other.xml').expect(404);
  }, 60_000);
});
