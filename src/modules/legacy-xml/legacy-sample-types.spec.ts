import { readFileSync } from 'fs';
import path from 'path';
import { readFixture } from '../../../test/fixtures/fixtures';
import {
  LEGACY_SAMPLE_TYPES,
  legacySampleTypeKey,
  objectTypeForLegacy,
  objectTypeForLegacyPair,
} from './legacy-sample-types';

/** The `sample_type` enumeration of the v1 XSD, as old clients send it. */
function v1SampleTypes(): string[] {
  const xsd = readFixture('legacy-xml', 'schemas', 'SESAR_samplev2_schema_from_SESAR-Web-Services-Lib.xsd');
  const start = xsd.indexOf('<xs:element name="sample_type">');
  const end = xsd.indexOf('</xs:element>', start);
  return [...xsd.slice(start, end).matchAll(/<xs:enumeration value="([^"]+)"\/>/g)].map((match) => match[1]);
}

const OBJECT_TYPE_LABELS = new Set(
  (
    JSON.parse(readFileSync(path.join(__dirname, '..', 'vocabularies', 'seed-data', 'object-types.json'), 'utf8')) as {
      label: string;
    }[]
  ).map((entry) => entry.label),
);

describe('LEGACY_SAMPLE_TYPES', () => {
  it('maps every sample_type value of the v1 XSD', () => {
    const values = v1SampleTypes();
    expect(values).toHaveLength(37);
    expect(values.filter((value) => objectTypeForLegacy(value) === undefined)).toEqual([]);
  });

  it('maps to object types the vocabulary seeds, spelled as it spells them', () => {
    expect(LEGACY_SAMPLE_TYPES.filter((row) => !OBJECT_TYPE_LABELS.has(row.objectType))).toEqual([]);
  });

  it('has one row per value, however it is spelled', () => {
    const keys = LEGACY_SAMPLE_TYPES.map((row) => legacySampleTypeKey(row.legacy));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives a v1 value without its parent the object type of the crosswalk pair', () => {
    for (const row of LEGACY_SAMPLE_TYPES.filter((candidate) => candidate.source === 'v1 schema')) {
      const parent = row.legacy === 'U-Channel' ? 'Core U-Channel' : `Individual Sample > ${row.legacy}`;
      expect([row.legacy, objectTypeForLegacy(parent)]).toEqual([row.legacy, row.objectType]);
    }
  });

  it('is what docs/integrations/legacy-xml-mapping.md shows', () => {
    const markdown = readFileSync(
      path.join(__dirname, '..', '..', '..', 'docs', 'integrations', 'legacy-xml-mapping.md'),
      'utf8',
    );
    const section = markdown.slice(markdown.indexOf('## Sample types'));
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| SESAR') && !line.startsWith('| ---'))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    expect(rows.map(([legacy, objectType, source]) => ({ legacy, objectType, source }))).toEqual(LEGACY_SAMPLE_TYPES);
  });
});

describe('objectTypeForLegacyPair', () => {
  it.each([
    ['Individual Sample', 'Gas', 'Gas in container'],
    ['IndividualSample', 'Thin Section', 'Thin section'],
    ['Experimental Specimen', 'Thin Section', 'Thin section'],
    ['Core', 'Specimen', 'Individual sample'], // no such pair: the subtype's own row
    ['Individual Sample', 'Eluate', 'Eluate'], // a current label, passed on
    [undefined, 'Human Tissue Sample', 'Human tissue'],
    ['Other', undefined, 'Material sample'],
    ['Unknown type', undefined, 'Unknown type'],
    [undefined, undefined, undefined],
  ])('%s > %s is %s', (type, subtype, objectType) => {
    expect(objectTypeForLegacyPair(type, subtype)).toBe(objectType);
  });
});
