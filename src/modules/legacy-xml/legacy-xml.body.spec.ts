import { readFixture } from '../../../test/fixtures/fixtures';
import { legacyXmlFromField, legacyXmlFromRequestBody } from './legacy-xml.body';
import { LegacyXmlError, LegacyXmlErrorReason } from './legacy-xml.error';
import { mapLegacySample } from './legacy-xml.mapper';
import { parseLegacySamplesDocument } from './legacy-xml.parser';

const EXAMPLE = readFixture('legacy-xml', 'examples', 'sesardoc_v1_upload_example.xml');

/** A document whose text needs every character a naive form parser trips over: & = + % ; and spaces. */
const TRICKY = `<?xml version="1.0" encoding="UTF-8"?>
<samples xmlns="http://app.geosamples.org">
  <sample>
    <name>Rock &amp; Roll = 100% + 1;</name>
    <description>a=b&amp;c=d, 50% + more</description>
    <external_urls><external_url><url>https://example.org/?a=1&amp;b=2</url></external_url></external_urls>
  </sample>
</samples>`;

const FORM = 'application/x-www-form-urlencoded';

function extractionError(run: () => unknown): LegacyXmlError {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof LegacyXmlError) return error;
    throw new Error(`expected a LegacyXmlError, got ${String(error)}`);
  }
  throw new Error('expected the body to be refused');
}

describe('legacyXmlFromRequestBody', () => {
  describe('URL-encoded form', () => {
    it('decodes a properly encoded content field', () => {
      const body = `content=${encodeURIComponent(TRICKY)}`;
      expect(legacyXmlFromRequestBody(FORM, body)).toBe(TRICKY);
      expect(legacyXmlFromRequestBody(`${FORM}; charset=UTF-8`, Buffer.from(body))).toBe(TRICKY);
    });

    it('decodes + as a space, as form encoders write it', () => {
      const body = new URLSearchParams({ content: TRICKY, save: 'yes' }).toString();
      expect(body).toContain('+');
      expect(legacyXmlFromRequestBody(FORM, body)).toBe(TRICKY);
    });

    it('finds content among other fields', () => {
      const body = `username=a&content=${encodeURIComponent(EXAMPLE)}&password=b`;
      expect(legacyXmlFromRequestBody(FORM, body)).toBe(EXAMPLE);
    });

    it('refuses a form without content, or with content twice', () => {
      expect(extractionError(() => legacyXmlFromRequestBody(FORM, 'username=a&password=b')).reason).toBe(
        'missing-content',
      );
      expect(
        extractionError(() => legacyXmlFromRequestBody(FORM, 'content=%3Ca%2F%3E&content=%3Cb%2F%3E')).message,
      ).toBe('The content field was sent more than once.');
      expect(extractionError(() => legacyXmlFromRequestBody(FORM, 'content=')).reason).toBe('missing-content');
    });
  });

  describe('raw content=<?xml … body that was not URL-encoded', () => {
    it.each([FORM, 'application/xml', 'text/xml', 'text/plain', undefined])('as %s keeps the XML verbatim', (type) => {
      expect(legacyXmlFromRequestBody(type, `content=${TRICKY}`)).toBe(TRICKY);
      expect(legacyXmlFromRequestBody(type, Buffer.from(`content=${TRICKY}`))).toBe(TRICKY);
    });

    it('skips fields before content (the old username/password form)', () => {
      expect(legacyXmlFromRequestBody('application/xml', `username=u&password=p&content=${TRICKY}`)).toBe(TRICKY);
    });

    it('cuts off &name=value fields after the last >', () => {
      expect(legacyXmlFromRequestBody(FORM, `content=${TRICKY}&submit=Upload&x=1`)).toBe(TRICKY);
      expect(legacyXmlFromRequestBody(FORM, `content=${TRICKY}\n`)).toBe(TRICKY);
    });

    it('leaves anything else after the XML for the parser to refuse', () => {
      const xml = legacyXmlFromRequestBody(FORM, `content=${TRICKY} trailing words`);
      expect(xml).toBe(`${TRICKY} trailing words`);
      expect(() => parseLegacySamplesDocument(xml)).toThrow(LegacyXmlError);
    });

    it('does not mistake "&content=" inside the XML for the field', () => {
      const xml = '<samples><sample><description>x&amp;content=<![CDATA[<y>]]></description></sample></samples>';
      expect(legacyXmlFromRequestBody('application/xml', `content=${xml}`)).toBe(xml);
    });
  });

  describe('XML media types', () => {
    it.each(['application/xml', 'text/xml', 'application/samples+xml', FORM])(
      'takes a bare document sent as %s',
      (type) => {
        expect(legacyXmlFromRequestBody(type, TRICKY)).toBe(TRICKY);
      },
    );

    it('skips a byte order mark and leading whitespace', () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`\n  ${EXAMPLE}`)]);
      expect(legacyXmlFromRequestBody('application/xml', body)).toBe(EXAMPLE);
    });

    it('decodes the charset of the content type', () => {
      const xml = '<samples><sample><name>Café</name></sample></samples>';
      expect(legacyXmlFromRequestBody('text/xml; charset=ISO-8859-1', Buffer.from(xml, 'latin1'))).toBe(xml);
      expect(legacyXmlFromRequestBody('text/xml; charset="utf-8"', Buffer.from(xml))).toBe(xml);
    });
  });

  describe('JSON', () => {
    it('reads {content}', () => {
      expect(legacyXmlFromRequestBody('application/json', JSON.stringify({ content: TRICKY }))).toBe(TRICKY);
      expect(
        legacyXmlFromRequestBody('application/json; charset=utf-8', Buffer.from(JSON.stringify({ content: TRICKY }))),
      ).toBe(TRICKY);
    });

    it.each([
      ['invalid JSON', '{"content": ', 'malformed'],
      ['no content', '{"xml": "<samples/>"}', 'missing-content'],
      ['content not a string', '{"content": ["<samples/>"]}', 'missing-content'],
      ['an array', '["<samples/>"]', 'missing-content'],
      ['empty content', '{"content": "  "}', 'missing-content'],
    ] as const)('refuses %s', (_case, body, reason: LegacyXmlErrorReason) => {
      expect(extractionError(() => legacyXmlFromRequestBody('application/json', body)).reason).toBe(reason);
    });
  });

  describe('refusals', () => {
    it.each([
      ['an empty body', FORM, '', 'missing-content'],
      ['a missing body', 'application/xml', undefined, 'missing-content'],
      ['whitespace', 'text/xml', ' \n ', 'missing-content'],
      ['an unsupported media type', 'image/png', '<samples/>', 'unsupported-media-type'],
      ['an unparsed multipart body', 'multipart/form-data; boundary=x', '--x\r\n', 'unsupported-media-type'],
      ['an unknown charset', 'text/xml; charset=x-unknown', Buffer.from('<samples/>'), 'unsupported-media-type'],
    ] as const)('%s', (_case, type, body, reason: LegacyXmlErrorReason) => {
      expect(extractionError(() => legacyXmlFromRequestBody(type, body)).reason).toBe(reason);
    });
  });

  it('gives the same samples for every body form', () => {
    const expected = parseLegacySamplesDocument(TRICKY).map(mapLegacySample);
    const forms: [string | undefined, string | Buffer][] = [
      [FORM, `content=${encodeURIComponent(TRICKY)}`],
      [FORM, `content=${TRICKY}`],
      ['application/xml', `content=${TRICKY}`],
      ['text/xml', `content=${TRICKY}`],
      ['application/xml', TRICKY],
      ['text/xml', Buffer.from(TRICKY)],
      ['application/json', JSON.stringify({ content: TRICKY })],
    ];
    for (const [type, body] of forms) {
      expect(parseLegacySamplesDocument(legacyXmlFromRequestBody(type, body)).map(mapLegacySample)).toEqual(expected);
    }
    expect(parseLegacySamplesDocument(legacyXmlFromField(TRICKY)).map(mapLegacySample)).toEqual(expected);
    expect(expected[0]).toMatchObject({
      name: 'Rock & Roll = 100% + 1;',
      sample_description: 'a=b&c=d, 50% + more',
      related_resources: [{ uri: 'https://example.org/?a=1&b=2' }],
    });
  });
});

describe('legacyXmlFromField (multipart, or a body already parsed by the HTTP layer)', () => {
  it('takes a text field as it is', () => {
    expect(legacyXmlFromField(TRICKY)).toBe(TRICKY);
  });

  it('decodes a file part as UTF-8', () => {
    expect(legacyXmlFromField(Buffer.from(TRICKY))).toBe(TRICKY);
  });

  it.each([
    ['a missing field', undefined, 'The request has no content field holding a samples XML document.'],
    ['an empty field', '', 'The request has no content field holding a samples XML document.'],
    ['a repeated field', [TRICKY, TRICKY], 'The content field was sent more than once.'],
    ['an object', { content: TRICKY }, 'The request has no content field holding a samples XML document.'],
  ])('refuses %s', (_case, value, message) => {
    expect(extractionError(() => legacyXmlFromField(value)).message).toBe(message);
  });
});
