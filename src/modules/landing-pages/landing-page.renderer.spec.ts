import { createHash } from 'node:crypto';
import { fullSampleDto, minimalSampleDto } from '../metadata-formats/sample-dto.examples';
import { toSchemaOrgJsonLd } from '../metadata-formats/schema-org.serializer';
import { escapeHtml, safeHref, scriptJson } from './html';
import { LANDING_PAGE_CSP, citation, renderGonePage, renderLandingPage } from './landing-page.renderer';

const metadata = { publisher: 'Test Registry' };
const baseUrl = 'https://registry.example.org';

function jsonLdOf(html: string): unknown {
  const match = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]);
}

describe('landing page renderer', () => {
  it('shows the facts of a sample, a citation, family links, downloads and the schema.org JSON-LD', () => {
    const sample = fullSampleDto();
    const html = renderLandingPage({
      sample,
      children: [{ igsn: '10.5072/IEABC0002', name: 'Split A' }],
      baseUrl,
      metadata,
    });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain(`<h1>${escapeHtml(sample.name)}</h1>`);
    expect(html).toContain(`<a href="https://doi.org/${sample.igsn}">${sample.igsn}</a>`);
    expect(html).toContain(escapeHtml(citation(sample, metadata)));
    expect(html).toContain('<a href="/samples/IEABC0002">10.5072/IEABC0002</a> — Split A');
    for (const format of ['json', 'jsonld', 'datacite', 'csv']) {
      expect(html).toContain(`href="/api/samples/IEABC0001/?format=${format}"`);
    }
    expect(html).toContain(`<link rel="canonical" href="${baseUrl}/samples/IEABC0001">`);
    expect(jsonLdOf(html)).toEqual(toSchemaOrgJsonLd(sample, { ...metadata, baseUrl }));
  });

  it('cites collectors, year, name, publisher and the DOI', () => {
    const sample = minimalSampleDto({ publish_date: '2024-05-01T00:00:00.000Z' });
    expect(citation(sample, metadata)).toBe(
      'Test Registry (2024): AT-2024-017. Test Registry. IGSN 10.5072/IEABC0001. https://doi.org/10.5072/IEABC0001',
    );
  });

  it('escapes every sample value and links only http(s) URLs', () => {
    const evil = '</script><script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
    const html = renderLandingPage({
      sample: minimalSampleDto({
        name: evil,
        sample_description: evil,
        locality: evil,
        other_names: [evil],
        related_resources: [
          { uri: 'javascript:alert(3)', description: evil, relation_type: evil },
          { uri: 'https://example.org/?a=1&b="2"', description: null, relation_type: null },
        ],
      }),
      children: [{ igsn: '10.5072/IEABC0002', name: evil }],
      baseUrl,
      metadata,
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('javascript:alert(3)'); // shown as text
    expect(html).toContain('href="https://example.org/?a=1&amp;b=%222%22"');
    // The only script elements: the JSON-LD block and the copy script.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect((jsonLdOf(html) as { name: string }).name).toBe(evil);
  });

  it('allows exactly its inline script under its Content-Security-Policy', () => {
    const html = renderLandingPage({ sample: minimalSampleDto(), children: [], baseUrl, metadata });
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const hash = createHash('sha256').update(script).digest('base64');
    expect(LANDING_PAGE_CSP).toContain(`script-src 'sha256-${hash}'`);
    expect(LANDING_PAGE_CSP).toContain("default-src 'none'");
  });

  it('has helpers that cannot be talked out of escaping', () => {
    expect(safeHref('JAVASCRIPT:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,<b>')).toBeNull();
    expect(safeHref('not a url')).toBeNull();
    expect(safeHref('http://example.org/a b')).toBe('http://example.org/a%20b');
    expect(scriptJson({ a: '</script><!--\u2028' })).toBe('{"a":"\\u003c/script\\u003e\\u003c!--\\u2028"}');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('explains a withdrawn sample and an unknown one', () => {
    expect(renderGonePage(410, 'Test Registry')).toContain('<h1>This sample has been withdrawn</h1>');
    expect(renderGonePage(404, 'Test Registry')).toContain('<h1>Sample not found</h1>');
  });
});
