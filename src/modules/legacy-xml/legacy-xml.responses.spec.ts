import { readFixture } from '../../../test/fixtures/fixtures';
import { Parser } from 'xml2js';
import {
  LEGACY_XML_DEPRECATION_HEADERS,
  LEGACY_XML_DEPRECATION_WARNING,
  bareIgsn,
  legacyInvalidAuthDocument,
  legacyErrorText,
  legacyInvalidXmlDocument,
  legacyResultsDocument,
} from './legacy-xml.responses';

const readResponse = (file: string) => readFixture('legacy-xml', 'responses', file);

/** An XML document as old clients see it: names, attributes, trimmed text and child order; whitespace aside. */
interface XmlTree {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlTree[];
}

function tree(xml: string): XmlTree {
  let result: unknown;
  const parser = new Parser({
    explicitChildren: true,
    preserveChildrenOrder: true,
    charsAsChildren: false,
    explicitCharkey: true,
    explicitRoot: false,
  });
  parser.parseString(xml, (error: Error | null, parsed: unknown) => {
    if (error) throw error;
    result = parsed;
  });
  return toTree(result as RawNode);
}

interface RawNode {
  '#name': string;
  $?: Record<string, string>;
  _?: string;
  $$?: RawNode[];
}

function toTree(node: RawNode): XmlTree {
  return {
    name: node['#name'],
    attributes: node.$ ?? {},
    text: (node._ ?? '').trim(),
    children: (node.$$ ?? []).map(toTree),
  };
}

/** The same tree with every text and attribute value blanked: what must match whatever the values. */
function shape(node: XmlTree): unknown {
  return {
    name: node.name,
    attributes: Object.keys(node.attributes),
    children: node.children.map(shape),
  };
}

const findChild = (node: XmlTree, name: string) => node.children.find((child) => child.name === name);

describe('legacy XML response documents', () => {
  describe.each([
    ['upload_success_sesardoc.xml', 'saved'],
    ['upload_success_clienttest.xml', 'saved'],
    ['update_success_sesardoc.xml', 'updated'],
  ] as const)('success like %s', (file, status) => {
    const reference = tree(readResponse(file));
    const referenceSample = reference.children[0];
    const name = findChild(referenceSample, 'name')?.text ?? '';
    const igsn = findChild(referenceSample, 'igsn')?.text ?? '';

    it('is the same document for the same sample', () => {
      const ours = legacyResultsDocument([{ status, name, igsn }], { deprecationWarning: false });
      expect(tree(ours)).toEqual(reference);
    });

    it('keeps the shape for other values and adds the warning last', () => {
      const ours = tree(legacyResultsDocument([{ status, name: 'Other & <name>', igsn: '10.58052/IEABC0001' }]));
      expect(shape({ ...ours, children: ours.children.slice(0, -1) })).toEqual(shape(reference));
      expect(ours.children.at(-1)).toEqual({
        name: 'warning',
        attributes: {},
        text: LEGACY_XML_DEPRECATION_WARNING,
        children: [],
      });
    });
  });

  it('writes a per-sample failure like error_400_invalidsample_sesardoc.xml', () => {
    const reference = tree(readResponse('error_400_invalidsample_sesardoc.xml'));
    const sample = reference.children[0];
    const ours = legacyResultsDocument([
      { status: 'failed', name: sample.attributes.name, error: findChild(sample, 'error')?.text ?? '' },
    ]);
    expect(tree(ours)).toEqual(reference);
  });

  it('writes an unreadable-document error like error_400_invalidxml_sesardoc.xml', () => {
    const reference = tree(readResponse('error_400_invalidxml_sesardoc.xml'));
    expect(tree(legacyInvalidXmlDocument(findChild(reference, 'error')?.text ?? ''))).toEqual(reference);
  });

  it('writes an authentication error like error_401_invalidauth_sesardoc.xml', () => {
    const reference = tree(readResponse('error_401_invalidauth_sesardoc.xml'));
    expect(tree(legacyInvalidAuthDocument(findChild(reference, 'error')?.text ?? ''))).toEqual(reference);
    const ours = tree(legacyInvalidAuthDocument());
    expect(shape(ours)).toEqual(shape(reference));
    expect(findChild(ours, 'error')?.text).toContain('Bearer');
  });

  it('starts without an XML declaration, like every reference response', () => {
    for (const document of [
      legacyResultsDocument([{ status: 'saved', name: 'a', igsn: 'IEABC0001' }]),
      legacyInvalidXmlDocument('x'),
      legacyInvalidAuthDocument(),
    ]) {
      expect(document.startsWith('<results>\n')).toBe(true);
    }
    expect(readResponse('upload_success_sesardoc.xml').startsWith('<results>')).toBe(true);
  });

  it('renders a two-sample result with one success and one failure', () => {
    const document = legacyResultsDocument([
      { status: 'saved', name: 'S1', igsn: '10.58052/IEABC0001' },
      { status: 'failed', name: 'S2', error: 'Latitude is required.' },
    ]);
    expect(document).toBe(
      [
        '<results>',
        '  <sample>',
        '    <status>Sample [S1] was saved successfully with IGSN [IEABC0001].</status>',
        '    <name>S1</name>',
        '    <igsn>IEABC0001</igsn>',
        '  </sample>',
        '  <sample name="S2">',
        '    <valid code="InvalidSample">no</valid>',
        '    <status>Not Saved</status>',
        '    <error>Latitude is required.</error>',
        '  </sample>',
        `  <warning>${LEGACY_XML_DEPRECATION_WARNING}</warning>`,
        '</results>',
        '',
      ].join('\n'),
    );
  });

  it("puts a sample's own warning last inside its <sample>", () => {
    const document = legacyResultsDocument([
      { status: 'saved', name: 'S1', igsn: 'IEABC0001', warning: 'Saved as a draft: add <latitude>.' },
    ]);
    expect(document).toContain(
      [
        '    <igsn>IEABC0001</igsn>',
        '    <warning>Saved as a draft: add &lt;latitude&gt;.</warning>',
        '  </sample>',
        `  <warning>${LEGACY_XML_DEPRECATION_WARNING}</warning>`,
      ].join('\n'),
    );
  });

  it('has no warning when every sample failed', () => {
    const ours = tree(legacyResultsDocument([{ status: 'failed', name: 'S', error: 'e' }]));
    expect(ours.children.map((child) => child.name)).toEqual(['sample']);
  });

  it('escapes names and messages in text and attributes', () => {
    const name = `A & B <"quoted"> 'single'\ttab\nline`;
    const error = 'Value <x> & "y" is not accepted';
    const document = legacyResultsDocument([
      { status: 'updated', name, igsn: 'IEABC0001' },
      { status: 'failed', name, error },
    ]);
    expect(document).toContain('A &amp; B &lt;"quoted"&gt;');
    expect(document).toContain('name="A &amp; B &lt;&quot;quoted&quot;&gt; &apos;single&apos;&#9;tab&#10;line"');
    const [updated, failed] = tree(document).children;
    expect(findChild(updated, 'name')?.text).toBe(name);
    expect(findChild(updated, 'status')?.text).toBe(`Sample [${name}] was updated successfully with IGSN [IEABC0001].`);
    expect(failed.attributes.name).toBe(name);
    expect(findChild(failed, 'error')?.text).toBe(error);
  });

  it('keeps the document readable when a message quotes characters XML cannot carry', () => {
    const document = legacyInvalidXmlDocument('bad \u0001 char \uD800 here\r');
    expect(findChild(tree(document), 'error')?.text).toBe('bad \uFFFD char \uFFFD here');
  });

  describe('bareIgsn', () => {
    it.each([
      ['10.5072/IEABC0001', 'IEABC0001'],
      ['10.58052/IEABC0001', 'IEABC0001'],
      ['https://doi.org/10.58052/IEABC0001', 'IEABC0001'],
      ['doi:10.58052/IEABC0001', 'IEABC0001'],
      ['IEABC0001', 'IEABC0001'],
      [' ABC123456 ', 'ABC123456'],
    ])('%s → %s', (igsn, bare) => {
      expect(bareIgsn(igsn)).toBe(bare);
    });

    it('is what the status and igsn elements carry', () => {
      const [sample] = tree(
        legacyResultsDocument([{ status: 'saved', name: 'n', igsn: '10.5072/IEABC0001' }]),
      ).children;
      expect(findChild(sample, 'igsn')?.text).toHaveLength(9);
      expect(findChild(sample, 'status')?.text).toBe('Sample [n] was saved successfully with IGSN [IEABC0001].');
    });
  });

  it('exports the deprecation headers of CONTRACT §7', () => {
    expect(LEGACY_XML_DEPRECATION_HEADERS).toEqual({
      Deprecation: 'true',
      Link: '</api/samples/>; rel="successor-version"',
    });
  });

  describe('legacyErrorText', () => {
    it.each<[string, Record<string, string[]>, string]>([
      ['Sample not found.', {}, 'Sample not found.'],
      [
        'Validation failed: latitude, longitude.',
        { latitude: ['is required to publish a sample'], longitude: ['is required to publish a sample'] },
        'Validation failed. latitude: is required to publish a sample; longitude: is required to publish a sample.',
      ],
      [
        'Validation failed: latitude.',
        { latitude: ['latitude must not be greater than 90'] },
        'Validation failed. latitude: must not be greater than 90.',
      ],
      [
        'Validation failed: collectors.0.individual.label.',
        { 'collectors.0.individual.label': ['label must be shorter than or equal to 200 characters'] },
        'Validation failed. collectors.0.individual.label: must be shorter than or equal to 200 characters.',
      ],
      [
        'Validation failed: foo.',
        { foo: ['This field is not allowed.'] },
        'Validation failed. foo: This field is not allowed.',
      ],
      // The problem is already in the message: not repeated.
      [
        'Invalid country: unknown country "Atlantis".',
        { country: ['unknown country "Atlantis"'] },
        'Invalid country: unknown country "Atlantis".',
      ],
      [
        'IGSN 10.5072/ABC123456 is already registered',
        { igsn: ['already registered'] },
        'IGSN 10.5072/ABC123456 is already registered',
      ],
      ['Conflict', { igsn: ['taken'] }, 'Conflict. igsn: taken.'],
    ])('%s %j → %s', (message, errors, text) => {
      expect(legacyErrorText(message, errors)).toBe(text);
    });
  });
});
