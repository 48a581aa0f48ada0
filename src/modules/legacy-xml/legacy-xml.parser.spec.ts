import { fixtureXmlFiles, readFixture } from '../../../test/fixtures/fixtures';
import { LegacyXmlError } from './legacy-xml.error';
import { LegacyXmlElement, parseLegacySamplesDocument } from './legacy-xml.parser';

const exampleFiles = fixtureXmlFiles('legacy-xml', 'examples');
const readExample = (file: string) => readFixture('legacy-xml', 'examples', file);

/** The error thrown by parsing `xml`, failing the test if it parses or throws anything else. */
function parseError(xml: string, maxBytes?: number | { maxAttributes: number }, maxElements?: number): LegacyXmlError {
  const options = typeof maxBytes === 'object' ? maxBytes : { maxBytes, maxElements };
  try {
    parseLegacySamplesDocument(xml, options);
  } catch (error: unknown) {
    if (error instanceof LegacyXmlError) return error;
    throw new Error(`expected a LegacyXmlError, got ${String(error)}`);
  }
  throw new Error('expected the document to be refused');
}

const names = (element: LegacyXmlElement) => element.children.map((child) => child.name);

describe('parseLegacySamplesDocument', () => {
  it('finds the four reference examples', () => {
    expect(exampleFiles.sort()).toEqual([
      'sesardoc_v1_update_example.xml',
      'sesardoc_v1_update_example_linewrapped.xml',
      'sesardoc_v1_upload_example.xml',
      'sesardoc_v1_upload_example_linewrapped.xml',
    ]);
  });

  describe.each(exampleFiles)('%s', (file) => {
    it('yields one <sample> with its elements in document order', () => {
      const samples = parseLegacySamplesDocument(readExample(file));
      expect(samples).toHaveLength(1);
      const [sample] = samples;
      expect(sample.name).toBe('sample');
      const upload = file.includes('upload');
      expect(names(sample)).toEqual([
        ...(upload ? ['user_code'] : []),
        'sample_type',
        'sample_subtype',
        'name',
        'material',
        'igsn',
        'classification',
        'description',
        'age_min',
        'age_max',
        'age_unit',
        'collection_method',
        'latitude',
        'longitude',
        'elevation',
        'primary_location_name',
        'country',
        'province',
        'county',
        'collector',
        'collection_start_date',
        'collection_date_precision',
        'original_archive',
      ]);
      expect(sample.namespace).toBe('http://app.geosamples.org');
    });

    it('keeps the nested classification as an element tree', () => {
      const [sample] = parseLegacySamplesDocument(readExample(file));
      const classification = sample.children.find((child) => child.name === 'classification');
      expect(classification?.attributes).toEqual({
        'xsi:schemaLocation': 'http://app.geosamples.org/classifications.xsd',
      });
      const rock = classification?.children[0];
      expect(rock?.name).toBe('Rock');
      expect(rock?.children[0].name).toBe('Igneous');
      expect(rock?.children[0].children[0].name).toBe('Plutonic');
      expect(rock?.children[0].children[0].children[0]).toMatchObject({ name: 'PlutonicType', text: 'Felsic' });
    });
  });

  describe('namespaces', () => {
    const body = '<sample><name>N</name><latitude>1</latitude></sample>';
    const forms = {
      'default namespace': `<samples xmlns="http://app.geosamples.org">${body}</samples>`,
      'no namespace': `<samples>${body}</samples>`,
      'prefixed namespace': `<gs:samples xmlns:gs="http://app.geosamples.org"><gs:sample><gs:name>N</gs:name><gs:latitude>1</gs:latitude></gs:sample></gs:samples>`,
      'other namespace': `<samples xmlns="urn:example">${body}</samples>`,
    };

    it.each(Object.entries(forms))('reads the %s form by local names', (_form, xml) => {
      const [sample] = parseLegacySamplesDocument(xml);
      expect(sample.name).toBe('sample');
      expect(names(sample)).toEqual(['name', 'latitude']);
      expect(sample.children.map((child) => child.text)).toEqual(['N', '1']);
    });

    it('records the namespace URI without requiring it', () => {
      expect(parseLegacySamplesDocument(forms['prefixed namespace'])[0].children[0].namespace).toBe(
        'http://app.geosamples.org',
      );
      expect(parseLegacySamplesDocument(forms['no namespace'])[0].children[0].namespace).toBe('');
    });

    it('resolves prefixes declared on an ancestor and default namespaces redeclared deeper', () => {
      const [sample] = parseLegacySamplesDocument(
        '<gs:samples xmlns:gs="http://app.geosamples.org"><gs:sample xml:lang="en">' +
          '<gs:classification xmlns="urn:c"><Rock/></gs:classification></gs:sample></gs:samples>',
      );
      expect(sample.attributes).toEqual({ 'xml:lang': 'en' });
      const classification = sample.children[0];
      expect(classification).toMatchObject({ name: 'classification', namespace: 'http://app.geosamples.org' });
      expect(classification.children[0]).toMatchObject({ name: 'Rock', namespace: 'urn:c' });
    });

    it('refuses an undeclared prefix', () => {
      expect(parseError('<gs:samples><gs:sample/></gs:samples>').message).toBe(
        'The XML document uses the undeclared namespace prefix "gs" in <gs:samples>.',
      );
    });
  });

  describe('the element tree', () => {
    it('decodes entities and CDATA into text', () => {
      const [sample] = parseLegacySamplesDocument(
        '<samples><sample><name>A &amp; B &lt;C&gt; &#233; <![CDATA[<b>&raw</b>]]></name></sample></samples>',
      );
      expect(sample.children[0].text).toBe('A & B <C> é <b>&raw</b>');
    });

    it('keeps attributes and leaves out namespace declarations', () => {
      const [sample] = parseLegacySamplesDocument(
        '<samples xmlns="http://app.geosamples.org" xmlns:x="urn:x"><sample name="S1" x:flag="y"/></samples>',
      );
      expect(sample.attributes).toEqual({ name: 'S1', 'x:flag': 'y' });
    });

    it('keeps text untrimmed and separate from child elements', () => {
      const [sample] = parseLegacySamplesDocument('<samples><sample><a> x <b>y</b> z </a></sample></samples>');
      const a = sample.children[0];
      expect(a.text).toBe(' x  z ');
      expect(names(a)).toEqual(['b']);
    });

    it('returns several samples in order', () => {
      const samples = parseLegacySamplesDocument(
        '<samples><sample><name>1</name></sample><!-- c --><sample><name>2</name></sample></samples>',
      );
      expect(samples.map((sample) => sample.children[0].text)).toEqual(['1', '2']);
    });

    it('treats element names such as __proto__ as plain names', () => {
      const [sample] = parseLegacySamplesDocument(
        '<samples><sample __proto__="a" b="c"><__proto__>x</__proto__><constructor/></sample></samples>',
      );
      expect(names(sample)).toEqual(['__proto__', 'constructor']);
      expect(sample.children[0].text).toBe('x');
      expect(Object.getPrototypeOf(sample.attributes)).toBe(Object.prototype);
      expect(sample.attributes.b).toBe('c');
    });

    it('decodes the HTML named entities sax knows, such as &nbsp;', () => {
      const [sample] = parseLegacySamplesDocument('<samples><sample><name>a&nbsp;b</name></sample></samples>');
      expect(sample.children[0].text).toBe('a\u00A0b');
    });

    it('accepts a byte order mark and whitespace before the declaration', () => {
      expect(parseLegacySamplesDocument('\uFEFF\n  <?xml version="1.0"?><samples><sample/></samples>')).toHaveLength(1);
    });
  });

  describe('refuses entity declarations before parsing', () => {
    const externalEntity =
      '<?xml version="1.0"?>\n<!DOCTYPE samples [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n' +
      '<samples><sample><name>&xxe;</name></sample></samples>';
    const billionLaughs =
      '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n' +
      Array.from({ length: 9 }, (_, i) => ` <!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">\n`).join(
        '',
      ) +
      ']>\n<samples><sample><name>&lol9;</name></sample></samples>';

    it.each([
      ['an external entity', externalEntity],
      ['a billion-laughs entity', billionLaughs],
      ['a bare DOCTYPE', '<!DOCTYPE samples><samples><sample/></samples>'],
      ['a lower-case doctype', '<!doctype samples><samples><sample/></samples>'],
      ['an entity declaration alone', '<samples><!ENTITY x "y"><sample/></samples>'],
      ['a parameter entity', '<!DOCTYPE s [<!ENTITY % p SYSTEM "http://example.org/p.dtd"> %p;]><samples/>'],
    ])('%s', (_case, xml) => {
      const error = parseError(xml);
      expect(error.reason).toBe('forbidden-declaration');
      expect(error.message).toBe('DOCTYPE and ENTITY declarations are not allowed in the XML document.');
    });
  });

  describe('size limit', () => {
    it('refuses a 20 MB document before parsing it', () => {
      const sample = `<sample><name>${'x'.repeat(1000)}</name></sample>`;
      const xml = `<samples>${sample.repeat(Math.ceil((20 * 1024 * 1024) / sample.length))}</samples>`;
      expect(xml.length).toBeGreaterThan(20 * 1024 * 1024);
      const started = Date.now();
      const error = parseError(xml);
      expect(error.reason).toBe('too-large');
      expect(error.message).toBe('The XML document is larger than the limit of 5242880 bytes.');
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('counts UTF-8 bytes, not characters, against the limit passed in', () => {
      const xml = `<samples><sample><name>${'é'.repeat(600)}</name></sample></samples>`;
      expect(xml.length).toBeLessThan(1000);
      expect(parseError(xml, 1000).reason).toBe('too-large');
      expect(parseLegacySamplesDocument(xml, { maxBytes: 2000 })).toHaveLength(1);
    });
  });

  describe('refuses what is not a samples document', () => {
    it.each([
      ['an empty string', '', 'The content field does not hold an XML document.'],
      ['whitespace', '  \n ', 'The content field does not hold an XML document.'],
      [
        'plain text',
        'hello',
        'The XML document is not well-formed: Non-whitespace before first tag (line 1, column 1).',
      ],
      ['JSON', '{"content": "<samples/>"}', 'The XML document is not well-formed: Non-whitespace before first tag'],
      ['an unclosed root', '<samples><sample>', 'The XML document is not well-formed: Unclosed root tag'],
      ['a mismatched tag', '<samples><sample></samples>', 'The XML document is not well-formed: Unexpected close tag'],
      ['an undefined entity', '<samples><sample>&xxe;</sample></samples>', 'Invalid character entity'],
      ['text after the root', '<samples><sample/></samples>&x=1', 'Text data outside of root node'],
      ['a second root', '<samples><sample/></samples><samples/>', 'exactly one root element'],
      ['a control character', '<samples><sample>\u0001</sample></samples>', 'characters that XML does not allow'],
      ['a wrong root', '<sample><name>x</name></sample>', 'The root element must be <samples>, not <sample>.'],
      ['a results document', '<results><valid>yes</valid></results>', 'The root element must be <samples>'],
      ['an empty samples element', '<samples/>', 'The <samples> document contains no <sample> element.'],
      ['only comments inside', '<samples> <!-- none --> </samples>', 'contains no <sample> element'],
      ['a stray element', '<samples><sample/><igsn>X</igsn></samples>', '<samples> may only contain <sample> elements'],
    ])('%s', (_case, xml, message) => {
      expect(parseError(xml).message).toContain(message);
    });

    it('refuses a document nested deeper than 64 elements', () => {
      const xml = `<samples><sample>${'<a>'.repeat(100)}${'</a>'.repeat(100)}</sample></samples>`;
      expect(parseError(xml).message).toBe('The XML document is nested more than 64 elements deep.');
    });

    it('refuses a document with more elements than the limit before parsing it', () => {
      const xml = `<samples><sample>${'<a/>'.repeat(300_000)}</sample></samples>`;
      const error = parseError(xml);
      expect(error.reason).toBe('too-large');
      expect(error.message).toBe('The XML document has more than 250000 elements.');
      expect(parseError('<samples><sample><a/><b/></sample></samples>', undefined, 3).message).toBe(
        'The XML document has more than 3 elements.',
      );
    });

    it('refuses a 5 MiB document of nested elements at once', () => {
      const xml = `<samples><sample>${'<a>'.repeat(700_000)}${'</a>'.repeat(700_000)}</sample></samples>`;
      const started = Date.now();
      expect(parseError(xml).message).toBe('The XML document is nested more than 64 elements deep.');
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('does not count markup inside comments, CDATA or attribute values as elements', () => {
      const xml = '<samples><sample note="<a><a><a>"><!-- <a><a> --><name><![CDATA[<a><a>]]></name></sample></samples>';
      expect(parseLegacySamplesDocument(xml, { maxElements: 3 })).toHaveLength(1);
    });

    it('reads an element with up to 32 attributes; refuses more on one element, or more than the limit in all', () => {
      const element = (count: number) => `<sample ${Array.from({ length: count }, (_, i) => `a${i}="1"`).join(' ')}/>`;
      const [sample] = parseLegacySamplesDocument(`<samples>${element(32)}</samples>`);
      expect(Object.keys(sample.attributes)).toHaveLength(32);
      // 50,000 attributes on one element: refused in one pass over the text, before sax sees it.
      const started = Date.now();
      expect(parseError(`<samples>${element(50_000)}</samples>`)).toMatchObject({
        message: 'An element of the XML document has more than 32 attributes.',
        reason: 'too-large',
      });
      expect(Date.now() - started).toBeLessThan(2000);
      const spread = `<samples>${Array.from({ length: 11 }, () => element(10)).join('')}</samples>`;
      expect(parseError(spread, { maxAttributes: 100 })).toMatchObject({
        message: 'The XML document has more than 100 attributes.',
        reason: 'too-large',
      });
      expect(parseLegacySamplesDocument(spread, { maxAttributes: 110 })).toHaveLength(11);
    });

    it('refuses input that is not a string', () => {
      for (const input of [undefined, null, 42, Buffer.from('<samples><sample/></samples>')]) {
        expect(() => parseLegacySamplesDocument(input as unknown as string)).toThrow(LegacyXmlError);
      }
    });
  });

  it('throws nothing but LegacyXmlError for arbitrary input', () => {
    // Deterministic pseudo-random documents made of XML-ish fragments.
    let seed = 20240601;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pieces = [
      '<',
      '>',
      '/',
      '<samples>',
      '</samples>',
      '<sample>',
      '</sample>',
      '<name>',
      '</name>',
      '&',
      '&amp;',
      ';',
      '"',
      "'",
      '=',
      ' ',
      '\n',
      'x',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '<?',
      '?>',
      ':',
      'a:b',
      'xmlns="u"',
      '\u0000',
      '\uD800',
      'é',
      '%3C',
    ];
    for (let i = 0; i < 3000; i++) {
      const length = Math.floor(random() * 30);
      const xml = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      try {
        const samples = parseLegacySamplesDocument(xml);
        expect(samples.length).toBeGreaterThan(0);
      } catch (error: unknown) {
        expect(error).toBeInstanceOf(LegacyXmlError);
      }
    }
  });
});
