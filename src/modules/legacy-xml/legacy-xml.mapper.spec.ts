import { readFixture } from '../../../test/fixtures/fixtures';
import { readFileSync } from 'fs';
import path from 'path';
import {
  JsonValue,
  LEGACY_XML_MAPPING,
  LegacyXmlMappingRow,
  LegacySampleBody,
  SAMPLE_DESCRIPTION_SEPARATOR,
  elementsWithoutField,
  legacyText,
  mapLegacySample,
  mapLegacySampleWrite,
  unmappedElementNames,
} from './legacy-xml.mapper';
import { LegacyXmlElement, parseLegacySamplesDocument } from './legacy-xml.parser';

const readExample = (file: string) => readFixture('legacy-xml', 'examples', file);

const parseOne = (xml: string): LegacyXmlElement => parseLegacySamplesDocument(xml)[0];
const mapDocument = (xml: string): LegacySampleBody => mapLegacySample(parseOne(xml));
const parseInner = (inner: string): LegacyXmlElement =>
  parseOne(`<samples xmlns="http://app.geosamples.org"><sample>${inner}</sample></samples>`);
/** Maps `<sample>{inner}</sample>` in the legacy default namespace. */
const mapInner = (inner: string): LegacySampleBody =>
  mapDocument(`<samples xmlns="http://app.geosamples.org"><sample>${inner}</sample></samples>`);

/** Reads a table path such as `platform.label` or `collectors[].individual.label` (first entry of a list). */
function valueAt(body: JsonValue, jsonPath: string): JsonValue | undefined {
  let current: JsonValue | undefined = body;
  for (const segment of jsonPath.split('.')) {
    const isList = segment.endsWith('[]');
    if (current === undefined || current === null || typeof current !== 'object' || Array.isArray(current)) {
      return undefined;
    }
    current = current[isList ? segment.slice(0, -2) : segment];
    if (isList) current = Array.isArray(current) ? current[0] : undefined;
  }
  return current;
}

/** `a/b` with text → `<a><b>text</b></a>`. */
function elementXml(xmlPath: string, text: string): string {
  return xmlPath
    .split('/')
    .reverse()
    .reduce((inner, name) => `<${name}>${inner}</${name}>`, text);
}

const UPLOAD_BODY: LegacySampleBody = {
  registry_code: 'ABC',
  object_type: 'Thin section',
  name: 'TestSample123',
  general_material_type: 'Rock',
  igsn: 'ABC123456',
  material_types: ['Igneous>Plutonic>Felsic'],
  sample_description: 'arkose',
  numeric_age_min: 6.5,
  numeric_age_max: 13,
  numeric_age_unit: 'years',
  sampling_method: 'Grab',
  latitude: 35.5134,
  longitude: -117.3463,
  elevation: 781.4,
  primary_location_name: 'Lava Mountains, Mojave Desert, California',
  country: 'United States',
  province: 'California',
  county: 'San Bernardino',
  collectors: [{ individual: { label: 'J. E. Andrew' } }],
  sampling_start_date: '2002-05-30T09:30:10Z',
  sampling_date_precision: 'time',
  original_archive: { label: 'University of Kansas' },
};
const { registry_code: _uploadOnly, ...UPDATE_BODY } = UPLOAD_BODY;

const EXAMPLES: [string, LegacySampleBody][] = [
  ['sesardoc_v1_upload_example.xml', UPLOAD_BODY],
  ['sesardoc_v1_upload_example_linewrapped.xml', UPLOAD_BODY],
  ['sesardoc_v1_update_example.xml', UPDATE_BODY],
  ['sesardoc_v1_update_example_linewrapped.xml', UPDATE_BODY],
];

const rowFor = (name: string): LegacyXmlMappingRow | undefined => LEGACY_XML_MAPPING.find((row) => row.xml === name);

describe('mapLegacySample on the reference examples', () => {
  describe.each(EXAMPLES)('%s', (file, expected) => {
    const xml = readExample(file);
    const sample = parseOne(xml);
    const body = mapLegacySample(sample);

    it('maps to the expected JSON sample body', () => {
      expect(body).toEqual(expected);
    });

    it('puts every plain element where its table row says, field by field', () => {
      const checked: string[] = [];
      for (const element of sample.children) {
        const row = rowFor(element.name);
        expect(row).toBeDefined();
        if (row === undefined || row.json === null) continue;
        const text = legacyText(element);
        const plainValues: Partial<Record<LegacyXmlMappingRow['rule'], JsonValue>> = {
          text,
          number: Number(text),
          lowercase: text.toLowerCase(),
        };
        const expected = plainValues[row.rule];
        if (expected !== undefined) {
          checked.push(element.name);
          expect([element.name, valueAt(body, row.json)]).toEqual([element.name, expected]);
        }
      }
      expect(checked).toHaveLength(17); // all but the six elements of the combining rules below
    });

    it('applies the combining rules', () => {
      expect(body.object_type).toBe('Thin section'); // Individual Sample > Thin Section, through the crosswalk
      expect(body).not.toHaveProperty('sample_type');
      expect(body.material_types).toEqual(['Igneous>Plutonic>Felsic']); // nested form, "Rock>" stripped
      expect(body.collectors).toEqual([{ individual: { label: 'J. E. Andrew' } }]);
      expect(body.sample_description).toBe('arkose');
      expect(body.registry_code).toBe(file.includes('upload') ? 'ABC' : undefined);
    });

    it('maps the same without a namespace and with a prefix', () => {
      const withoutNamespace = xml.replace(/ xmlns="http:\/\/app\.geosamples\.org"/g, '');
      expect(withoutNamespace).not.toContain('xmlns="');
      const prefixed = xml
        .replace(/xmlns="http:\/\/app\.geosamples\.org"/g, 'xmlns:gs="http://app.geosamples.org"')
        .replace(/<(\/?)(?=[A-Za-z_])/g, '<$1gs:');
      expect(prefixed).toContain('<gs:sample>');
      expect(mapDocument(withoutNamespace)).toEqual(body);
      expect(mapDocument(prefixed)).toEqual(body);
    });

    it('leaves no element outside the table', () => {
      expect(unmappedElementNames(sample)).toEqual([]);
    });
  });

  it('maps line-wrapped documents like their unwrapped originals', () => {
    const map = (file: string) => mapDocument(readExample(file));
    expect(map('sesardoc_v1_upload_example_linewrapped.xml')).toEqual(map('sesardoc_v1_upload_example.xml'));
    expect(map('sesardoc_v1_update_example_linewrapped.xml')).toEqual(map('sesardoc_v1_update_example.xml'));
  });
});

describe('LEGACY_XML_MAPPING', () => {
  it('lists each element once', () => {
    const names = LEGACY_XML_MAPPING.map((row) => row.xml);
    expect(new Set(names).size).toBe(names.length);
  });

  it('drops exactly the ignored and refused elements and marks the ignored ones lossy', () => {
    for (const row of LEGACY_XML_MAPPING) {
      expect([row.xml, row.json === null]).toEqual([row.xml, row.rule === 'ignored' || row.rule === 'refused']);
      if (row.rule === 'ignored') expect([row.xml, row.lossy]).toEqual([row.xml, true]);
    }
  });

  /** Containers need an entry inside them to produce anything. */
  const EXAMPLE_PATHS: Record<string, string> = {
    sample_other_names: 'sample_other_names/sample_other_name',
    external_urls: 'external_urls/external_url/url',
    external_url: 'external_url/url',
  };
  /** What a row's JSON path holds when its element carries the text "42" (or "MeTeRs" for lowercase). */
  function expectedAt(row: LegacyXmlMappingRow): JsonValue {
    const link = { uri: '42', description: null, relation_type: null };
    if (row.xml === 'sample_other_names') return ['42'];
    if (row.xml === 'external_urls') return [link];
    if (row.xml === 'external_url') return link;
    if (row.rule === 'number') return 42;
    if (row.rule === 'lowercase') return 'meters';
    return '42';
  }

  it.each(LEGACY_XML_MAPPING.map((row): [string, LegacyXmlMappingRow] => [row.xml, row]))(
    '%s goes where the table says',
    (_xml, row) => {
      const text = row.rule === 'lowercase' ? ' MeTeRs ' : '\n 42 ';
      const body = mapInner(elementXml(EXAMPLE_PATHS[row.xml] ?? row.xml, text));
      if (row.json === null) {
        expect(body).toEqual({});
        return;
      }
      expect(valueAt(body, row.json)).toEqual(expectedAt(row));
    },
  );

  it('is what docs/integrations/legacy-xml-mapping.md shows', () => {
    const markdown = readFileSync(
      path.join(__dirname, '..', '..', '..', 'docs', 'integrations', 'legacy-xml-mapping.md'),
      'utf8',
    );
    const cells = (line: string) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
    const tableRows = markdown
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map(cells);
    const unquote = (cell: string) => (cell === '—' ? null : cell.replace(/^`|`$/g, ''));
    expect(
      tableRows.map(([xml, json, rule, lossy, note]) => ({
        xml: unquote(xml),
        json: unquote(json),
        rule,
        lossy,
        note,
      })),
    ).toEqual(LEGACY_XML_MAPPING.map((row) => ({ ...row, lossy: row.lossy ? 'yes' : 'no' })));
  });
});

describe('mapLegacySample rules', () => {
  describe('object type (sample_subtype wins, through the sample-type table)', () => {
    it.each([
      [
        'both',
        '<sample_type>Individual Sample</sample_type><sample_subtype>Thin Section</sample_subtype>',
        'Thin section',
        'Individual Sample > Thin Section',
      ],
      [
        'subtype first',
        '<sample_subtype>Thin Section</sample_subtype><sample_type>Core</sample_type>',
        'Thin section',
        'Core > Thin Section',
      ],
      ['type only', '<sample_type>Core</sample_type>', 'Core', 'Core'],
      ['empty subtype', '<sample_type>Core</sample_type><sample_subtype>  </sample_subtype>', 'Core', 'Core'],
      ['subtype only', '<sample_subtype>Culture</sample_subtype>', 'Cell culture', 'Culture'],
      ['a v1 type', '<sample_type>Rock Powder</sample_type>', 'Powder', 'Rock Powder'],
      ['a v1 type without its parent', '<sample_type>Smear</sample_type>', 'Glass slide smear', 'Smear'],
      [
        'the IndividualSample spelling',
        '<sample_type>IndividualSample</sample_type>',
        'Individual sample',
        'IndividualSample',
      ],
      [
        'a pair of the crosswalk',
        '<sample_type>Experimental Specimen</sample_type><sample_subtype>Other</sample_subtype>',
        'Analytical preparations',
        'Experimental Specimen > Other',
      ],
      ['another letter case', '<sample_type>core sub-piece</sample_type>', 'Core subpiece', 'core sub-piece'],
      [
        'a current label as subtype',
        '<sample_type>Individual Sample</sample_type><sample_subtype>Polished thin section</sample_subtype>',
        'Polished thin section',
        'Individual Sample > Polished thin section',
      ],
      ['an unknown value, for the resolver to refuse', '<sample_type>Boulder</sample_type>', 'Boulder', 'Boulder'],
    ])('%s', (_case, inner, objectType, legacySampleType) => {
      const write = mapLegacySampleWrite(parseInner(inner), 'register');
      expect(write.body).toEqual({ object_type: objectType });
      expect(write.legacySampleType).toBe(legacySampleType);
    });

    it('has no legacy sample type without sample_type or sample_subtype', () => {
      expect(mapLegacySampleWrite(parseInner('<name>N</name>'), 'update').legacySampleType).toBeUndefined();
    });

    it('passes repeated types on as a list for validation to refuse, with no legacy sample type', () => {
      const write = mapLegacySampleWrite(
        parseInner('<sample_type>Core</sample_type><sample_type>CTD</sample_type>'),
        'register',
      );
      expect(write.body).toEqual({ object_type: ['Core', 'CTD'] });
      expect(write.legacySampleType).toBeUndefined();
    });

    it('maps parent_sample_type through the same table, keeping other values', () => {
      expect(mapInner('<parent_sample_type>U-Channel</parent_sample_type>')).toEqual({
        external_parent_object_type: 'Core U-channel sample',
      });
      expect(mapInner('<parent_sample_type>Boulder</parent_sample_type>')).toEqual({
        external_parent_object_type: 'Boulder',
      });
    });
  });

  describe('registry code', () => {
    it('takes user_code when there is no registry code', () => {
      expect(mapInner('<user_code>IEABC</user_code>')).toEqual({ registry_code: 'IEABC' });
    });

    it('keeps registry_code over user_code', () => {
      expect(mapInner('<user_code>ABC</user_code><registry_code>IEXYZ</registry_code>')).toEqual({
        registry_code: 'IEXYZ',
      });
    });

    it('does not add registry_code next to the sesar_code alias', () => {
      expect(mapInner('<sesar_code>IEXYZ</sesar_code><user_code>ABC</user_code>')).toEqual({ sesar_code: 'IEXYZ' });
    });
  });

  describe('sample_description', () => {
    it('joins description, sample_comment and classification_comment in that order', () => {
      const body = mapInner(
        '<classification_comment>CC</classification_comment><sample_comment>SC</sample_comment>' +
          '<description>D</description>',
      );
      expect(SAMPLE_DESCRIPTION_SEPARATOR).toBe('\n\n');
      expect(body).toEqual({ sample_description: 'D\n\nSC\n\nCC' });
    });

    it('uses the parts that are present', () => {
      expect(mapInner('<sample_comment>only a comment</sample_comment><description/>')).toEqual({
        sample_description: 'only a comment',
      });
    });

    it('joins location_description and locality_description into location_description', () => {
      expect(
        mapInner(
          '<locality_description>north slope</locality_description><location_description>ridge</location_description>',
        ),
      ).toEqual({ location_description: 'ridge\n\nnorth slope' });
      expect(mapInner('<locality_description>north slope</locality_description>')).toEqual({
        location_description: 'north slope',
      });
    });

    describe('on an update', () => {
      const update = (inner: string) => mapLegacySampleWrite(parseInner(inner), 'update');

      it('appends the comments when the document has no description', () => {
        expect(
          update(
            '<igsn>X</igsn><classification_comment>CC</classification_comment><sample_comment>SC</sample_comment>',
          ),
        ).toEqual({
          body: { igsn: 'X' },
          legacySampleType: undefined,
          append: { sample_description: 'SC\n\nCC' },
        });
        expect(update('<sample_comment>SC</sample_comment><description> </description>').append).toEqual({
          sample_description: 'SC',
        });
      });

      it('replaces the description with the joined text when the document has one', () => {
        expect(update('<sample_comment>SC</sample_comment><description>D</description>')).toEqual({
          body: { sample_description: 'D\n\nSC' },
          legacySampleType: undefined,
          append: {},
        });
      });

      it('appends locality_description without location_description, independently of the description', () => {
        expect(update('<description>D</description><locality_description>L</locality_description>')).toEqual({
          body: { sample_description: 'D' },
          legacySampleType: undefined,
          append: { location_description: 'L' },
        });
      });

      it('never appends on a register', () => {
        expect(mapLegacySampleWrite(parseInner('<sample_comment>SC</sample_comment>'), 'register')).toEqual({
          body: { sample_description: 'SC' },
          legacySampleType: undefined,
          append: {},
        });
      });
    });
  });

  describe('classification (rule 6)', () => {
    it.each([
      ['strips the material prefix', 'Rock', 'Rock>Igneous>Plutonic', 'Igneous>Plutonic'],
      ['compares the prefix without letter case', 'Rock', 'rock > Igneous>Plutonic', 'Igneous>Plutonic'],
      ['keeps a label without the prefix unsplit', 'Rock', 'Igneous>Plutonic>Felsic', 'Igneous>Plutonic>Felsic'],
      ['handles a material that contains >', 'Liquid>aqueous', 'Liquid>aqueous>Seawater', 'Seawater'],
      ['keeps a label naming another material', 'Mineral', 'Rock>Igneous', 'Rock>Igneous'],
      ['keeps a label equal to the material', 'Rock', 'Rock', 'Rock'],
    ])('%s', (_case, material, classification, label) => {
      const body = mapInner(`<material>${material}</material><classification>${classification}</classification>`);
      expect(body.material_types).toEqual([label]);
    });

    it('keeps the label whole without a material', () => {
      expect(mapInner('<classification>Rock>Igneous</classification>')).toEqual({ material_types: ['Rock>Igneous'] });
    });

    it('turns the nested element form into the same label as the text form', () => {
      const nested = mapInner(
        '<material>Rock</material><classification><Rock><Igneous><Plutonic>Granite</Plutonic></Igneous></Rock></classification>',
      );
      const text = mapInner('<material>Rock</material><classification>Rock>Igneous>Plutonic>Granite</classification>');
      expect(nested.material_types).toEqual(['Igneous>Plutonic>Granite']);
      expect(nested).toEqual(text);
    });

    it('does not make a step of a {Parent}Type leaf that only holds the value', () => {
      const body = mapInner(
        '<classification> <Rock> <Igneous> <Plutonic> <PlutonicType>Felsic</PlutonicType> </Plutonic> </Igneous> </Rock> </classification>',
      );
      expect(body.material_types).toEqual(['Rock>Igneous>Plutonic>Felsic']);
    });

    it('ends the path at an empty leaf element', () => {
      const body = mapInner(
        '<material>Mineral</material><classification><Mineral><Silicate/></Mineral></classification>',
      );
      expect(body.material_types).toEqual(['Silicate']);
    });

    it('gives one label per branch of a branching nested form', () => {
      const body = mapInner('<classification><Rock><Igneous/><Metamorphic/></Rock></classification>');
      expect(body.material_types).toEqual(['Rock>Igneous', 'Rock>Metamorphic']);
    });
  });

  describe('collectors (rule 9)', () => {
    it('pairs collector and collector_detail and never parses the detail', () => {
      const detail = 'ORCID 0000-0002-1825-0097; Univ. of Somewhere, Dept. of Geology; j.doe@example.org';
      expect(mapInner(`<collector>Jane Doe</collector><collector_detail>${detail}</collector_detail>`)).toEqual({
        collectors: [{ individual: { label: 'Jane Doe' }, description: detail }],
      });
    });

    it('keeps repeated collectors in order and a detail without a name', () => {
      expect(mapInner('<collector>A</collector><collector>B</collector>')).toEqual({
        collectors: [{ individual: { label: 'A' } }, { individual: { label: 'B' } }],
      });
      expect(mapInner('<collector_detail>field team</collector_detail>')).toEqual({
        collectors: [{ description: 'field team' }],
      });
    });
  });

  it('builds platform and launch platform objects from the members present', () => {
    const body = mapInner(
      '<platform_type>Ship</platform_type><platform_name>Atlantis</platform_name><platform_descr>R/V</platform_descr>' +
        '<launch_platform_name>Alvin</launch_platform_name><launch_type_name>HOV</launch_type_name>' +
        '<launch_id>3969</launch_id>',
    );
    expect(body).toEqual({
      platform: { platform_type: 'Ship', label: 'Atlantis', description: 'R/V' },
      launch_platform: { label: 'Alvin', launch_type: 'HOV' },
      launch_label: '3969',
    });
    expect(mapInner('<platform_name>Atlantis</platform_name><platform_type/>')).toEqual({
      platform: { label: 'Atlantis' },
    });
  });

  it('wraps archives as {label}', () => {
    expect(
      mapInner('<current_archive>Repository A</current_archive><original_archive>Museum B</original_archive>'),
    ).toEqual({ current_archive: { label: 'Repository A' }, original_archive: { label: 'Museum B' } });
  });

  describe('external links (rule 8)', () => {
    it('keeps url and description, ignores url_type, old_url and attachments', () => {
      const body = mapInner(
        '<external_urls>' +
          '<external_url><url>https://example.org/a?x=1&amp;y=2</url><description>Paper</description>' +
          '<url_type>DOI</url_type><old_url>https://old.example.org</old_url><file>c2NhbiBkYXRh</file></external_url>' +
          '<external_url><url_type>regular</url_type><url>https://example.org/b</url></external_url>' +
          '<external_url><url_description>Described only</url_description></external_url>' +
          '<external_url><url_type>DOI</url_type></external_url>' +
          '</external_urls>',
      );
      expect(body).toEqual({
        related_resources: [
          { uri: 'https://example.org/a?x=1&y=2', description: 'Paper', relation_type: null },
          { uri: 'https://example.org/b', description: null, relation_type: null },
          { uri: null, description: 'Described only', relation_type: null },
        ],
      });
    });

    it('accepts external_url without the container', () => {
      expect(mapInner('<external_url><url>https://example.org</url></external_url>')).toEqual({
        related_resources: [{ uri: 'https://example.org', description: null, relation_type: null }],
      });
    });
  });

  it('collects other names from the container and from repeated elements', () => {
    expect(
      mapInner(
        '<sample_other_names><sample_other_name>A</sample_other_name><sample_other_name>B</sample_other_name>' +
          '</sample_other_names><sample_other_name>C</sample_other_name>',
      ),
    ).toEqual({ other_names: ['A', 'B', 'C'] });
  });

  it('ignores is_private and renames navigation_type (rules 7 and 10)', () => {
    expect(mapInner('<is_private>1</is_private><navigation_type>GPS</navigation_type>')).toEqual({
      location_method: 'GPS',
    });
  });

  describe('numbers', () => {
    it.each([
      ['35.5134', 35.5134],
      ['-117.3463', -117.3463],
      [' 13 ', 13],
      ['+5', 5],
      ['.5', 0.5],
      ['1e3', 1000],
      ['abc', 'abc'],
      ['0x10', '0x10'],
      ['35,5', '35,5'],
      ['Infinity', 'Infinity'],
      ['1e999', '1e999'],
      ['12 m', '12 m'],
    ])('%j → %j', (text, value) => {
      expect(mapInner(`<latitude>${text}</latitude><age_max>${text}</age_max>`)).toEqual({
        latitude: value,
        numeric_age_max: value,
      });
    });

    it('leaves text fields that look numeric as text', () => {
      expect(mapInner('<name>123</name><size>3</size><zone>11</zone>')).toEqual({ name: '123', size: '3', zone: '11' });
    });
  });

  it('lower-cases elevation_unit', () => {
    expect(mapInner('<elevation_unit>Meters</elevation_unit>')).toEqual({ elevation_unit: 'meters' });
  });

  it('drops empty elements', () => {
    expect(
      mapInner(
        '<name> </name><description/><latitude></latitude><platform_name/><collector/><classification/>' +
          '<sample_other_names/><external_urls><external_url/></external_urls><unknown_field/>',
      ),
    ).toEqual({});
  });

  it('collapses whitespace the way the old schema read values', () => {
    expect(mapInner('<name>\n  Lava\n  Mountains\t&#160;A </name>')).toEqual({ name: 'Lava Mountains \u00A0A' });
  });

  it('keeps igsn for the update', () => {
    expect(mapInner('<igsn>10.58052/IEABC0001</igsn>')).toEqual({ igsn: '10.58052/IEABC0001' });
  });

  it('turns a repeated single-valued element into an array for validation to refuse', () => {
    expect(
      mapInner('<name>A</name><name>B</name><platform_name>P</platform_name><platform_name>Q</platform_name>'),
    ).toEqual({ name: ['A', 'B'], platform: { label: ['P', 'Q'] } });
  });

  it('keeps unknown elements under their own name', () => {
    const sample = parseOne(
      '<samples><sample><name>N</name><sample_feature>ridge</sample_feature><Latitude>1</Latitude></sample></samples>',
    );
    expect(mapLegacySample(sample)).toEqual({ name: 'N', sample_feature: 'ridge', Latitude: '1' });
    expect(unmappedElementNames(sample)).toEqual(['sample_feature', 'Latitude']);
  });

  it('keeps the text of markup nested in a text field', () => {
    expect(mapInner('<description>a <b>bold</b> word</description>')).toEqual({ sample_description: 'a word bold' });
  });

  it('makes own properties of names such as __proto__', () => {
    const body = mapInner('<__proto__>x</__proto__><constructor>y</constructor>');
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body)).toEqual(['__proto__', 'constructor']);
    expect(JSON.parse(JSON.stringify(body))).toEqual({ constructor: 'y', ['__proto__']: 'x' });
  });
});

describe('elementsWithoutField', () => {
  const JSON_FIELDS = new Set(['name', 'registry_code', 'end_latitude']);
  const check = (inner: string) =>
    elementsWithoutField(parseOne(`<samples><sample>${inner}</sample></samples>`), JSON_FIELDS);

  it('names unknown elements that carry text, once each, in document order', () => {
    expect(
      check(
        '<name>N</name><sample_feature>ridge</sample_feature><legacy_sample_type>Core</legacy_sample_type>' +
          '<sample_feature>again</sample_feature>',
      ),
    ).toEqual(['sample_feature', 'legacy_sample_type']);
  });

  it('refuses no element of the v1 schema', () => {
    expect(LEGACY_XML_MAPPING.filter((row) => row.rule === 'refused')).toEqual([]);
    expect(check('<locality_description>slope</locality_description>')).toEqual([]);
  });

  it('accepts table elements and JSON field names sent as elements', () => {
    expect(check('<name>N</name><latitude_end>1</latitude_end><registry_code>IEABC</registry_code>')).toEqual([]);
    expect(check('<end_latitude>1</end_latitude>')).toEqual([]);
  });

  it('ignores empty elements, which are dropped anyway', () => {
    expect(check('<sample_feature> </sample_feature><legacy_sample_type/>')).toEqual([]);
  });
});
