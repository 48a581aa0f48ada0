import { SampleDto } from '../samples/dto/sample.dto';
import { MetadataFormatOptions, REGISTRY_PUBLISHER } from './metadata-options';
import {
  Party,
  collectionPeriod,
  collectorParties,
  dateOnly,
  materialPaths,
  organization,
  placeName,
  present,
  presentAll,
  rangeText,
  resourceIdentifier,
  sizeText,
} from './sample-metadata';
import { XmlElement, element, serializeXml } from './xml-writer';

export const DATACITE_NAMESPACE = 'http://datacite.org/schema/kernel-4';
export const DATACITE_SCHEMA_LOCATION = `${DATACITE_NAMESPACE} https://schema.datacite.org/meta/kernel-4.6/metadata.xsd`;

/** The relationType values of DataCite Metadata Schema 4.6 (include/datacite-relationType-v4.xsd). */
export const DATACITE_RELATION_TYPES = [
  'IsCitedBy',
  'Cites',
  'IsSupplementTo',
  'IsSupplementedBy',
  'IsContinuedBy',
  'Continues',
  'IsNewVersionOf',
  'IsPreviousVersionOf',
  'IsPartOf',
  'HasPart',
  'IsPublishedIn',
  'IsReferencedBy',
  'References',
  'IsDocumentedBy',
  'Documents',
  'IsCompiledBy',
  'Compiles',
  'IsVariantFormOf',
  'IsOriginalFormOf',
  'IsIdenticalTo',
  'HasMetadata',
  'IsMetadataFor',
  'Reviews',
  'IsReviewedBy',
  'IsDerivedFrom',
  'IsSourceOf',
  'Describes',
  'IsDescribedBy',
  'HasVersion',
  'IsVersionOf',
  'Requires',
  'IsRequiredBy',
  'Obsoletes',
  'IsObsoletedBy',
  'Collects',
  'IsCollectedBy',
  'HasTranslation',
  'IsTranslationOf',
] as const;
export type DataCiteRelationType = (typeof DATACITE_RELATION_TYPES)[number];

const RELATION_BY_LOWER_CASE = new Map<string, DataCiteRelationType>(
  DATACITE_RELATION_TYPES.map((type) => [type.toLowerCase(), type]),
);

/**
 * A related resource's relation_type as DataCite spells it (matched case-insensitively), or
 * `IsReferencedBy` — the relation the DataCite mapping sends for every related resource — when it
 * is empty or not a DataCite relationType.
 */
export function dataCiteRelationType(value: string | null | undefined): DataCiteRelationType {
  return RELATION_BY_LOWER_CASE.get((value ?? '').trim().toLowerCase()) ?? 'IsReferencedBy';
}

function partyElement(
  tag: 'creator' | 'contributor',
  party: Party | { name: string; nameType?: undefined },
  contributorType?: string,
): XmlElement | null {
  const full = 'displayName' in party ? party : null;
  return element(
    tag,
    { contributorType },
    element(`${tag}Name`, { nameType: party.nameType }, party.name),
    element('givenName', {}, full?.givenName),
    element('familyName', {}, full?.familyName),
    full?.identifier &&
      element(
        'nameIdentifier',
        {
          nameIdentifierScheme: full.identifier.scheme,
          schemeURI: full.identifier.scheme === 'ORCID' ? 'https://orcid.org' : 'https://ror.org',
        },
        full.identifier.url,
      ),
    full?.affiliation &&
      element(
        'affiliation',
        full.affiliation.ror
          ? {
              affiliationIdentifier: full.affiliation.ror,
              affiliationIdentifierScheme: 'ROR',
              schemeURI: 'https://ror.org',
            }
          : {},
        full.affiliation.name,
      ),
  );
}

/** Descriptive facts without a DataCite property of their own, written as labelled `Other` descriptions. */
function otherFacts(sample: SampleDto): string[] {
  const labelled = (label: string, value: string | null) => (value ? `${label}: ${value}` : null);
  const named = (label: string | null | undefined, detail: (string | null | undefined)[]) => {
    const name = present(label);
    const details = presentAll(detail);
    return name && details.length ? `${name} (${details.join(', ')})` : name;
  };
  return presentAll([
    labelled('Purpose', present(sample.purpose)),
    labelled('Location description', present(sample.location_description)),
    labelled(
      'Primary location',
      named(sample.primary_location_name, [sample.primary_location_type]) ?? present(sample.primary_location_type),
    ),
    labelled('Field name', present(sample.field_name)),
    labelled('Geologic unit', present(sample.geologic_unit)),
    labelled('Numeric age', rangeText(sample.numeric_age_min, sample.numeric_age_max, sample.numeric_age_unit)),
    labelled(
      'Elevation',
      rangeText(sample.elevation, sample.elevation_end, sample.elevation_unit, present(sample.vertical_datum)),
    ),
    labelled('Depth', rangeText(sample.depth_min, sample.depth_max, sample.depth_unit, present(sample.depth_scale))),
    labelled(
      'UTM coordinates',
      presentAll([
        sample.zone && `zone ${sample.zone}`,
        sample.easting && `easting ${sample.easting}`,
        sample.northing && `northing ${sample.northing}`,
      ]).join(', ') || null,
    ),
    labelled('Cruise or field program', present(sample.cruise_field_prgrm)),
    labelled('Platform', named(sample.platform?.label, [sample.platform?.platform_type, sample.platform?.description])),
    labelled('Launch platform', named(sample.launch_platform?.label, [sample.launch_platform?.launch_type])),
    labelled('Launch', present(sample.launch_label)),
    labelled('Original archive', named(sample.original_archive?.label, [sample.original_archive_contact])),
    labelled('External parent', named(sample.external_parent_name, [sample.external_parent_object_type])),
  ]);
}

/** The geolocation: named place, the (start) point, and the box spanned by start and end when the sample is a track. */
function geoLocation(sample: SampleDto): XmlElement | null {
  const { latitude, longitude, end_latitude: endLatitude, end_longitude: endLongitude } = sample;
  const hasPoint = latitude !== null && longitude !== null;
  const hasTrack = hasPoint && endLatitude !== null && endLongitude !== null;
  let box: XmlElement | null = null;
  if (hasTrack && (endLatitude !== latitude || endLongitude !== longitude)) {
    // A track across the antimeridian is the short way round: its west bound is east of its east bound.
    const crosses = Math.abs(endLongitude - longitude) > 180;
    const west = crosses ? Math.max(longitude, endLongitude) : Math.min(longitude, endLongitude);
    const east = crosses ? Math.min(longitude, endLongitude) : Math.max(longitude, endLongitude);
    box = element(
      'geoLocationBox',
      {},
      element('westBoundLongitude', {}, west),
      element('eastBoundLongitude', {}, east),
      element('southBoundLatitude', {}, Math.min(latitude, endLatitude)),
      element('northBoundLatitude', {}, Math.max(latitude, endLatitude)),
    );
  }
  return element(
    'geoLocation',
    {},
    element('geoLocationPlace', {}, placeName(sample)),
    hasPoint &&
      element('geoLocationPoint', {}, element('pointLongitude', {}, longitude), element('pointLatitude', {}, latitude)),
    box,
  );
}

/**
 * The DataCite Metadata Schema 4.6 document of a sample (resourceTypeGeneral PhysicalObject),
 * mapped as the registry's DataCite mapping describes (METADATA_FORMATS.md). Empty properties are
 * left out; every value is escaped.
 */
export function toDataCiteXml(sample: SampleDto, options: MetadataFormatOptions): string {
  return serializeXml(dataCiteResource(sample, options));
}

export function dataCiteResource(sample: SampleDto, options: MetadataFormatOptions): XmlElement {
  const objectType = present(sample.object_type_path) ?? present(sample.object_type) ?? 'Sample';
  const materials = materialPaths(sample);
  const publisher = present(options.publisher) ?? REGISTRY_PUBLISHER;

  const collectors = collectorParties(sample);
  const creators = collectors.length ? collectors : [organization(publisher)];

  const longTitle = presentAll([sample.name, objectType, ...materials, sample.field_name]).join(' ');
  const publicationYear = (sample.publish_date ?? sample.created_at).slice(0, 4);

  const contactName = present(sample.current_archive_contact);
  const resource = element(
    'resource',
    {
      xmlns: DATACITE_NAMESPACE,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': DATACITE_SCHEMA_LOCATION,
    },
    element('identifier', { identifierType: 'DOI' }, sample.igsn),
    element(
      'creators',
      {},
      creators.map((party) => partyElement('creator', party)),
    ),
    element(
      'titles',
      {},
      element('title', {}, sample.name),
      longTitle !== present(sample.name) && element('title', { titleType: 'AlternativeTitle' }, longTitle),
    ),
    element('publisher', {}, publisher),
    element('publicationYear', {}, publicationYear),
    element('resourceType', { resourceTypeGeneral: 'PhysicalObject' }, objectType),
    element(
      'subjects',
      {},
      [objectType, present(sample.geologic_age_verbatim), ...materials].map(
        (subject) => subject && element('subject', {}, subject),
      ),
    ),
    element(
      'contributors',
      {},
      sample.current_archive &&
        partyElement('contributor', organization(sample.current_archive.label), 'HostingInstitution'),
      contactName && partyElement('contributor', { name: contactName }, 'ContactPerson'),
    ),
    element(
      'dates',
      {},
      element('date', { dateType: 'Collected' }, collectionPeriod(sample)),
      element('date', { dateType: 'Created' }, dateOnly(sample.created_at)),
      element('date', { dateType: 'Updated' }, dateOnly(sample.updated_at)),
      element('date', { dateType: 'Available' }, dateOnly(sample.publish_date)),
    ),
    element(
      'alternateIdentifiers',
      {},
      presentAll(sample.other_names).map((name) =>
        element('alternateIdentifier', { alternateIdentifierType: 'Local' }, name),
      ),
    ),
    element(
      'relatedIdentifiers',
      {},
      sample.parent_sample &&
        element(
          'relatedIdentifier',
          { relatedIdentifierType: 'DOI', relationType: 'IsPartOf', resourceTypeGeneral: 'PhysicalObject' },
          sample.parent_sample,
        ),
      sample.related_resources.map((resource) => {
        const identifier = resourceIdentifier(resource.uri);
        return element(
          'relatedIdentifier',
          { relatedIdentifierType: identifier.type, relationType: dataCiteRelationType(resource.relation_type) },
          identifier.value,
        );
      }),
    ),
    element('sizes', {}, element('size', {}, sizeText(sample))),
    options.rights &&
      element(
        'rightsList',
        {},
        element(
          'rights',
          {
            rightsURI: options.rights.uri,
            rightsIdentifier: options.rights.identifier,
            rightsIdentifierScheme: options.rights.identifierScheme,
          },
          options.rights.statement,
        ),
      ),
    element(
      'descriptions',
      {},
      element('description', { descriptionType: 'Abstract' }, sample.sample_description),
      element(
        'description',
        { descriptionType: 'Methods' },
        presentAll([sample.sampling_method, sample.sampling_method_detail]).join(': '),
      ),
      element(
        'description',
        { descriptionType: 'Methods' },
        present(sample.location_method) && `Location method: ${present(sample.location_method)}`,
      ),
      otherFacts(sample).map((fact) => element('description', { descriptionType: 'Other' }, fact)),
    ),
    element('geoLocations', {}, geoLocation(sample)),
  );
  // identifier, creators, titles, publisher, year and resource type are always present.
  return resource as XmlElement;
}
