import { dataCiteSchema, readFixture } from '../../../test/fixtures/fixtures';
import { validateXML } from 'xmllint-wasm';
import { parseStringPromise } from 'xml2js';
import { DATACITE_RELATION_TYPES, dataCiteRelationType, toDataCiteXml } from './datacite.serializer';
import { fullSampleDto, minimalSampleDto } from './sample-dto.examples';

const OPTIONS = { publisher: 'Test Registry' };
/**
 * Validates documents against the DataCite 4.6 XSD (its includes loaded under the names
 * metadata.xsd references), all in one xmllint run since each run starts a worker.
 */
async function schemaErrors(...documents: string[]): Promise<string[]> {
  const result = await validateXML({
    xml: documents.map((contents, index) => ({ fileName: `sample-${index}.xml`, contents })),
    ...dataCiteSchema(),
  });
  return result.errors.map((error) => error.rawMessage);
}

type Node = { _?: string; $?: Record<string, string> } & { [child: string]: Node[] | string | Record<string, string> };

async function parse(xml: string): Promise<Node> {
  const document = (await parseStringPromise(xml, { explicitCharkey: true })) as { resource: Node };
  return document.resource;
}

const children = (node: Node, name: string): Node[] => (node[name] as Node[] | undefined) ?? [];
const texts = (node: Node, path: string[]): string[] => {
  let nodes = [node];
  for (const name of path) nodes = nodes.flatMap((n) => children(n, name));
  return nodes.map((n) => n._ ?? '');
};

describe('toDataCiteXml', () => {
  it('maps a fully filled sample to a document the DataCite 4.6 schema accepts', async () => {
    const xml = toDataCiteXml(fullSampleDto(), OPTIONS);
    expect(await schemaErrors(xml)).toEqual([]);
    const resource = await parse(xml);
    expect(resource.$).toMatchObject({
      xmlns: 'http://datacite.org/schema/kernel-4',
      'xsi:schemaLocation':
        'http://datacite.org/schema/kernel-4 https://schema.datacite.org/meta/kernel-4.6/metadata.xsd',
    });
    expect(children(resource, 'identifier')[0]).toEqual({ _: '10.5072/IEABC0001', $: { identifierType: 'DOI' } });
    const [marie, whoi] = children(children(resource, 'creators')[0], 'creator');
    expect(texts(marie, ['creatorName'])).toEqual(['Tharp, Marie']);
    expect(children(marie, 'creatorName')[0].$).toEqual({ nameType: 'Personal' });
    expect(texts(marie, ['givenName'])).toEqual(['Marie']);
    expect(texts(marie, ['familyName'])).toEqual(['Tharp']);
    expect(children(marie, 'nameIdentifier')[0]).toEqual({
      _: 'https://orcid.org/0000-0002-1825-0097',
      $: { nameIdentifierScheme: 'ORCID', schemeURI: 'https://orcid.org' },
    });
    expect(children(marie, 'affiliation')[0]).toEqual({
      _: 'Lamont-Doherty Earth Observatory',
      $: {
        affiliationIdentifier: 'https://ror.org/00hx57361',
        affiliationIdentifierScheme: 'ROR',
        schemeURI: 'https://ror.org',
      },
    });
    expect(children(whoi, 'creatorName')[0]).toEqual({
      _: 'Woods Hole Oceanographic Institution',
      $: { nameType: 'Organizational' },
    });
    expect(children(children(resource, 'titles')[0], 'title')).toEqual([
      { _: 'Basalt <A&B> "dredge" 7' },
      {
        _: 'Basalt <A&B> "dredge" 7 Material sample > Individual sample Rock > Igneous>Volcanic Rock > Basalt Pillow basalt',
        $: { titleType: 'AlternativeTitle' },
      },
    ]);
    expect(texts(resource, ['publisher'])).toEqual(['Test Registry']);
    expect(texts(resource, ['publicationYear'])).toEqual(['2025']);
    expect(children(resource, 'resourceType')[0]).toEqual({
      _: 'Material sample > Individual sample',
      $: { resourceTypeGeneral: 'PhysicalObject' },
    });
    expect(texts(resource, ['subjects', 'subject'])).toEqual([
      'Material sample > Individual sample',
      'Pleistocene',
      'Rock > Igneous>Volcanic',
      'Rock > Basalt',
    ]);
    const contributors = children(children(resource, 'contributors')[0], 'contributor');
    expect(contributors.map((c) => [c.$?.contributorType, texts(c, ['contributorName'])[0]])).toEqual([
      ['HostingInstitution', 'Lamont-Doherty Core Repository'],
      ['ContactPerson', 'curator@example.org'],
    ]);
    expect(children(children(resource, 'dates')[0], 'date')).toEqual([
      { _: '2024-06-01/2024-06-03', $: { dateType: 'Collected' } },
      { _: '2025-03-04', $: { dateType: 'Created' } },
      { _: '2025-03-05', $: { dateType: 'Updated' } },
      { _: '2025-03-04', $: { dateType: 'Available' } },
    ]);
    expect(children(children(resource, 'alternateIdentifiers')[0], 'alternateIdentifier')).toEqual([
      { _: 'D7-1', $: { alternateIdentifierType: 'Local' } },
      { _: 'Field #12', $: { alternateIdentifierType: 'Local' } },
    ]);
    expect(children(children(resource, 'relatedIdentifiers')[0], 'relatedIdentifier')).toEqual([
      {
        _: '10.5072/IEABC0000',
        $: { relatedIdentifierType: 'DOI', relationType: 'IsPartOf', resourceTypeGeneral: 'PhysicalObject' },
      },
      { _: '10.1594/PANGAEA.123456', $: { relatedIdentifierType: 'DOI', relationType: 'IsDocumentedBy' } },
      { _: 'https://example.org/report?a=1&b=2', $: { relatedIdentifierType: 'URL', relationType: 'IsReferencedBy' } },
      { _: 'https://example.org/same', $: { relatedIdentifierType: 'URL', relationType: 'IsIdenticalTo' } },
    ]);
    expect(texts(resource, ['sizes', 'size'])).toEqual(['12 cm']);
    const descriptions = children(children(resource, 'descriptions')[0], 'description');
    expect(descriptions.slice(0, 3)).toEqual([
      { _: 'Pillow basalt, fresh glass rim.\nSecond line: é ü 中文', $: { descriptionType: 'Abstract' } },
      { _: 'Dredging: Chain bag dredge along the wall', $: { descriptionType: 'Methods' } },
      { _: 'Location method: DGPS', $: { descriptionType: 'Methods' } },
    ]);
    expect(descriptions.slice(3).map((d) => d._)).toEqual([
      'Purpose: Petrology',
      'Location description: Northern wall of the fracture zone',
      'Primary location: Atlantis Massif (Seamount)',
      'Field name: Pillow basalt',
      'Geologic unit: Layer 2A',
      'Numeric age: 1.2 to 2.5 Ma',
      'Elevation: -2500 to -2400 meters (WGS84)',
      'Depth: 0 to 1.5 meters (MBSF)',
      'UTM coordinates: zone 19T, easting 350000, northing 4595000',
      'Cruise or field program: AT42-01',
      'Platform: R/V Atlantis (Ship, Global class research vessel)',
      'Launch platform: Alvin (HOV)',
      'Launch: Dive 4567',
      'Original archive: Ship archive (Ship lab)',
      'External parent: Dredge haul 7 (Dredge)',
    ]);
    const [geo] = children(children(resource, 'geoLocations')[0], 'geoLocation');
    expect(texts(geo, ['geoLocationPlace'])).toEqual([
      'Atlantis Fracture Zone, Woods Hole, Barnstable, Massachusetts, United States',
    ]);
    expect(texts(geo, ['geoLocationPoint', 'pointLatitude'])).toEqual(['41.5']);
    expect(texts(geo, ['geoLocationPoint', 'pointLongitude'])).toEqual(['-72.8']);
    const [box] = children(geo, 'geoLocationBox');
    expect(
      ['westBoundLongitude', 'eastBoundLongitude', 'southBoundLatitude', 'northBoundLatitude'].map(
        (name) => texts(box, [name])[0],
      ),
    ).toEqual(['-72.8', '-72.6', '41.5', '41.6']);
  });

  it('leaves out every empty property of a minimal sample, which still validates', async () => {
    const xml = toDataCiteXml(minimalSampleDto(), OPTIONS);
    expect(await schemaErrors(xml)).toEqual([]);
    expect(xml).not.toMatch(/<(\w+)[^>]*>\s*<\/\1>|<\w+[^>]*\/>/);
    const resource = await parse(xml);
    expect(Object.keys(resource).filter((key) => key !== '$')).toEqual([
      'identifier',
      'creators',
      'titles',
      'publisher',
      'publicationYear',
      'resourceType',
      'subjects',
      'dates',
      'geoLocations',
    ]);
    // no collectors: the publisher is the creator
    expect(children(children(resource, 'creators')[0], 'creator')).toEqual([
      { creatorName: [{ _: 'Test Registry', $: { nameType: 'Organizational' } }] },
    ]);
    expect(texts(resource, ['dates', 'date'])).toEqual(['2025-03-04', '2025-03-05', '2025-03-04']);
  });

  it('escapes markup and drops characters XML cannot carry, everywhere', async () => {
    const hostile = 'x</title><title>injected</title>&amp; "q" \'a\' \u0001\u0008\uFFFE \uD800 end';
    const xml = toDataCiteXml(
      fullSampleDto({
        name: hostile,
        other_names: [hostile],
        sample_description: `a\r\nb ${hostile}`,
        current_archive_contact: hostile,
        related_resources: [{ uri: 'https://example.org/?q="x"&y=<z>', description: null, relation_type: hostile }],
      }),
      OPTIONS,
    );
    expect(await schemaErrors(xml)).toEqual([]);
    expect(xml).not.toContain('<title>injected</title>');
    const resource = await parse(xml);
    const cleaned = 'x</title><title>injected</title>&amp; "q" \'a\'   end';
    expect(texts(resource, ['titles', 'title'])[0]).toBe(cleaned);
    expect(texts(resource, ['alternateIdentifiers', 'alternateIdentifier'])).toEqual([cleaned]);
    expect(texts(resource, ['descriptions', 'description'])[0]).toBe(`a\r\nb ${cleaned}`);
    expect(texts(resource, ['relatedIdentifiers', 'relatedIdentifier'])[1]).toBe('https://example.org/?q="x"&y=<z>');
  });

  it('writes a collection period at its precision, or with an unknown start', async () => {
    const start = '2024-06-01T08:00:00.000Z';
    const end = '2025-01-03T12:30:00.000Z';
    const cases: [Parameters<typeof minimalSampleDto>[0], string | undefined][] = [
      [{ sampling_start_date: start }, '2024-06-01'],
      [{ sampling_start_date: start, sampling_end_date: end, sampling_date_precision: 'year' }, '2024/2025'],
      [{ sampling_start_date: start, sampling_end_date: end, sampling_date_precision: 'month' }, '2024-06/2025-01'],
      [
        { sampling_start_date: start, sampling_end_date: end, sampling_date_precision: 'time' },
        '2024-06-01T08:00:00Z/2025-01-03T12:30:00Z',
      ],
      [{ sampling_start_date: start, sampling_end_date: start }, '2024-06-01'],
      [{ sampling_end_date: end }, 'unknown/2025-01-03'],
      [{}, undefined],
    ];
    const documents = cases.map(([overrides]) => toDataCiteXml(minimalSampleDto(overrides), OPTIONS));
    expect(await schemaErrors(...documents)).toEqual([]);
    for (const [index, [, expected]] of cases.entries()) {
      const dates = children(children(await parse(documents[index]), 'dates')[0], 'date');
      expect(dates.find((date) => date.$?.dateType === 'Collected')?._).toBe(expected);
    }
  });

  it('takes the publication year from publish_date, else created_at', async () => {
    const year = async (overrides: Parameters<typeof minimalSampleDto>[0]) =>
      texts(await parse(toDataCiteXml(minimalSampleDto(overrides), OPTIONS)), ['publicationYear'])[0];
    expect(await year({ publish_date: '2027-01-01T00:00:00.000Z' })).toBe('2027');
    expect(await year({ publish_date: null, created_at: '2023-05-01T00:00:00.000Z' })).toBe('2023');
  });

  it('spans a track across the antimeridian the short way, and writes a place without coordinates', async () => {
    const track = toDataCiteXml(
      minimalSampleDto({ latitude: -10, longitude: 179.5, end_latitude: -10.5, end_longitude: -179.5 }),
      OPTIONS,
    );
    const [box] = children(
      children(children(await parse(track), 'geoLocations')[0], 'geoLocation')[0],
      'geoLocationBox',
    );
    expect(texts(box, ['westBoundLongitude'])).toEqual(['179.5']);
    expect(texts(box, ['eastBoundLongitude'])).toEqual(['-179.5']);
    expect(texts(box, ['southBoundLatitude'])).toEqual(['-10.5']);

    const draft = toDataCiteXml(
      minimalSampleDto({ latitude: null, longitude: null, country: 'fr', locality: 'Massif Central' }),
      OPTIONS,
    );
    const resource = await parse(draft);
    expect(texts(resource, ['geoLocations', 'geoLocation', 'geoLocationPlace'])).toEqual(['Massif Central, France']);
    expect(children(children(children(resource, 'geoLocations')[0], 'geoLocation')[0], 'geoLocationPoint')).toEqual([]);

    const nowhere = toDataCiteXml(minimalSampleDto({ latitude: null, longitude: null }), OPTIONS);
    expect(await schemaErrors(track, draft, nowhere)).toEqual([]);
    expect(nowhere).not.toContain('geoLocation');
  });

  it('names collectors as people or organisations and skips nameless ones', async () => {
    const xml = toDataCiteXml(
      minimalSampleDto({
        collectors: [
          {
            id: 1,
            individual: { id: 1, label: null, fname: 'Ada', lname: null, individual_uri: 'not-an-orcid' },
            institution: null,
            description: null,
          },
          {
            id: 2,
            individual: { id: 2, label: null, fname: null, lname: null, individual_uri: null },
            institution: { id: 2, label: 'USGS', ror: 'https://ror.org/035A68863' },
            description: null,
          },
          { id: 3, individual: null, institution: { id: 3, label: '  ', ror: null }, description: 'nobody' },
        ],
      }),
      OPTIONS,
    );
    expect(await schemaErrors(xml)).toEqual([]);
    const creators = children(children(await parse(xml), 'creators')[0], 'creator');
    expect(creators).toEqual([
      { creatorName: [{ _: 'Ada', $: { nameType: 'Personal' } }], givenName: [{ _: 'Ada' }] },
      {
        creatorName: [{ _: 'USGS', $: { nameType: 'Organizational' } }],
        nameIdentifier: [
          { _: 'https://ror.org/035a68863', $: { nameIdentifierScheme: 'ROR', schemeURI: 'https://ror.org' } },
        ],
      },
    ]);
    const nameless = toDataCiteXml(
      minimalSampleDto({ collectors: [{ id: 3, individual: null, institution: null, description: 'x' }] }),
      OPTIONS,
    );
    expect(texts(await parse(nameless), ['creators', 'creator', 'creatorName'])).toEqual(['Test Registry']);
  });

  it('recognises DOIs among related resources and writes the rights statement when configured', async () => {
    const xml = toDataCiteXml(
      minimalSampleDto({
        related_resources: [
          { uri: 'http://dx.doi.org/10.1000/ABC%2F1', description: null, relation_type: null },
          { uri: 'https://www.doi.org/10.5555/x', description: null, relation_type: 'Cites' },
          { uri: 'https://example.org/doi.org/10.1/x', description: null, relation_type: '' },
        ],
      }),
      {
        ...OPTIONS,
        rights: {
          statement: 'CC0 1.0',
          uri: 'https://creativecommons.org/publicdomain/zero/1.0/',
          identifier: 'CC0-1.0',
          identifierScheme: 'SPDX',
        },
      },
    );
    expect(await schemaErrors(xml)).toEqual([]);
    const resource = await parse(xml);
    expect(children(children(resource, 'relatedIdentifiers')[0], 'relatedIdentifier')).toEqual([
      { _: '10.1000/ABC/1', $: { relatedIdentifierType: 'DOI', relationType: 'IsReferencedBy' } },
      { _: '10.5555/x', $: { relatedIdentifierType: 'DOI', relationType: 'Cites' } },
      { _: 'https://example.org/doi.org/10.1/x', $: { relatedIdentifierType: 'URL', relationType: 'IsReferencedBy' } },
    ]);
    expect(children(children(resource, 'rightsList')[0], 'rights')).toEqual([
      {
        _: 'CC0 1.0',
        $: {
          rightsURI: 'https://creativecommons.org/publicdomain/zero/1.0/',
          rightsIdentifier: 'CC0-1.0',
          rightsIdentifierScheme: 'SPDX',
        },
      },
    ]);
  });
});

describe('dataCiteRelationType', () => {
  it('knows exactly the relation types of the 4.6 schema', () => {
    const xsd = readFixture('datacite-4.6', 'include', 'datacite-relationType-v4.xsd');
    const inSchema = [...xsd.matchAll(/<xs:enumeration value="([^"]+)"/g)].map((match) => match[1]);
    expect([...DATACITE_RELATION_TYPES]).toEqual(inSchema);
  });

  it('keeps DataCite relation types (any case) and falls back to IsReferencedBy', () => {
    expect(dataCiteRelationType('IsSupplementTo')).toBe('IsSupplementTo');
    expect(dataCiteRelationType(' isderivedfrom ')).toBe('IsDerivedFrom');
    expect(dataCiteRelationType('related')).toBe('IsReferencedBy');
    expect(dataCiteRelationType(null)).toBe('IsReferencedBy');
  });
});
