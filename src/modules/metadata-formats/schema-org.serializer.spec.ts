import { fullSampleDto, minimalSampleDto } from './sample-dto.examples';
import { JsonLdValue, toSchemaOrgJsonLd } from './schema-org.serializer';

const OPTIONS = { publisher: 'Test Registry', baseUrl: 'https://registry.example.org/' };

/** Paths of values a consumer would read as "present but empty". */
function emptyPaths(value: JsonLdValue, path = '$'): string[] {
  if (value === null || value === undefined || value === '') return [path];
  if (Array.isArray(value)) {
    return value.length ? value.flatMap((item, index) => emptyPaths(item, `${path}[${index}]`)) : [path];
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (!keys.some((key) => key !== '@type')) return [path];
    return keys.flatMap((key) => emptyPaths(value[key], `${path}.${key}`));
  }
  return [];
}

describe('toSchemaOrgJsonLd', () => {
  it('describes a fully filled sample', () => {
    const document = toSchemaOrgJsonLd(fullSampleDto(), OPTIONS);
    expect(emptyPaths(document)).toEqual([]);
    expect(document).toEqual({
      '@context': 'https://schema.org/',
      '@type': 'CreativeWork',
      '@id': 'https://doi.org/10.5072/IEABC0001',
      identifier: {
        '@type': 'PropertyValue',
        propertyID: 'IGSN',
        value: '10.5072/IEABC0001',
        url: 'https://doi.org/10.5072/IEABC0001',
      },
      url: 'https://registry.example.org/samples/IEABC0001',
      name: 'Basalt <A&B> "dredge" 7',
      alternateName: ['D7-1', 'Field #12'],
      description: 'Pillow basalt, fresh glass rim.\nSecond line: é ü 中文',
      additionalType: 'Material sample > Individual sample',
      material: ['Rock', 'Igneous>Volcanic', 'Basalt'],
      keywords: [
        'Material sample > Individual sample',
        'Pleistocene',
        'Layer 2A',
        'Rock > Igneous>Volcanic',
        'Rock > Basalt',
      ],
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
      dateCreated: '2025-03-04T10:00:00.000Z',
      dateModified: '2025-03-05T11:30:00.000Z',
      datePublished: '2025-03-04T10:00:00.000Z',
      creator: [
        {
          '@type': 'Person',
          '@id': 'https://orcid.org/0000-0002-1825-0097',
          name: 'Marie Tharp',
          givenName: 'Marie',
          familyName: 'Tharp',
          affiliation: {
            '@type': 'Organization',
            '@id': 'https://ror.org/00hx57361',
            name: 'Lamont-Doherty Earth Observatory',
          },
        },
        { '@type': 'Organization', name: 'Woods Hole Oceanographic Institution' },
      ],
      contributor: {
        '@type': 'Role',
        roleName: 'HostingInstitution',
        contributor: { '@type': 'Organization', name: 'Lamont-Doherty Core Repository' },
      },
      publisher: { '@type': 'Organization', name: 'Test Registry' },
      isPartOf: {
        '@type': 'CreativeWork',
        '@id': 'https://doi.org/10.5072/IEABC0000',
        identifier: {
          '@type': 'PropertyValue',
          propertyID: 'IGSN',
          value: '10.5072/IEABC0000',
          url: 'https://doi.org/10.5072/IEABC0000',
        },
      },
      sameAs: 'https://example.org/same',
      subjectOf: [
        {
          '@type': 'CreativeWork',
          '@id': 'https://doi.org/10.1594/PANGAEA.123456',
          url: 'https://doi.org/10.1594/PANGAEA.123456',
          description: 'Geochemistry',
        },
        {
          '@type': 'CreativeWork',
          '@id': 'https://example.org/report?a=1&b=2',
          url: 'https://example.org/report?a=1&b=2',
          description: 'Cruise report',
        },
      ],
    });
  });

  it('leaves out empty properties; the publisher is the creator when nobody collected the sample', () => {
    const document = toSchemaOrgJsonLd(minimalSampleDto(), { publisher: 'Test Registry' });
    expect(emptyPaths(document)).toEqual([]);
    expect(document).toEqual({
      '@context': 'https://schema.org/',
      '@type': 'CreativeWork',
      '@id': 'https://doi.org/10.5072/IEABC0001',
      identifier: {
        '@type': 'PropertyValue',
        propertyID: 'IGSN',
        value: '10.5072/IEABC0001',
        url: 'https://doi.org/10.5072/IEABC0001',
      },
      name: 'AT-2024-017',
      additionalType: 'Material sample > Individual sample',
      keywords: ['Material sample > Individual sample'],
      spatialCoverage: { '@type': 'Place', geo: { '@type': 'GeoCoordinates', latitude: 41.5, longitude: -72.8 } },
      dateCreated: '2025-03-04T10:00:00.000Z',
      dateModified: '2025-03-05T11:30:00.000Z',
      datePublished: '2025-03-04T10:00:00.000Z',
      creator: { '@type': 'Organization', name: 'Test Registry' },
      publisher: { '@type': 'Organization', name: 'Test Registry' },
    });
  });

  it('gives elevation in other units as text, and an external parent by name', () => {
    const document = toSchemaOrgJsonLd(
      minimalSampleDto({
        elevation: 120,
        elevation_unit: 'feet',
        external_parent_name: 'Core 12',
        external_parent_object_type: 'Core',
        related_resources: [{ uri: 'https://example.org/cruise', description: null, relation_type: 'ispartof' }],
      }),
      OPTIONS,
    );
    expect(document.spatialCoverage).toEqual({
      '@type': 'Place',
      geo: { '@type': 'GeoCoordinates', latitude: 41.5, longitude: -72.8, elevation: '120 ft' },
    });
    expect(document.isPartOf).toEqual([
      { '@type': 'CreativeWork', name: 'Core 12', additionalType: 'Core' },
      { '@type': 'CreativeWork', '@id': 'https://example.org/cruise', url: 'https://example.org/cruise' },
    ]);
  });

  it('describes a sample without coordinates by its named place only', () => {
    const document = toSchemaOrgJsonLd(
      minimalSampleDto({ latitude: null, longitude: null, country: 'NZ', city: 'Dunedin' }),
      OPTIONS,
    );
    expect(document.spatialCoverage).toEqual({
      '@type': 'Place',
      name: 'Dunedin, New Zealand',
      address: { '@type': 'PostalAddress', addressLocality: 'Dunedin', addressCountry: 'NZ' },
    });
    expect(toSchemaOrgJsonLd(minimalSampleDto({ latitude: null, longitude: null }), OPTIONS).spatialCoverage).toBe(
      undefined,
    );
  });
});
