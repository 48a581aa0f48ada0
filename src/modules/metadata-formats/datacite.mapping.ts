import { isBareDoi, resourceIdentifier } from '../../core/identifiers/persistent-identifiers';
import { SampleDto } from '../samples';
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
  sizeText,
} from './sample-metadata';

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

/*
 * The DataCite mapping of a sample, once, in the shape of the DataCite REST API's JSON attributes
 * (which mirror Metadata Schema 4.6 property for property). The XML serialiser writes these
 * attributes as a <resource> document and the DOI registration sends them as they are, so the
 * metadata DataCite receives and the DataCite XML a client downloads never disagree.
 * Empty values are left out everywhere.
 */

export interface DataCiteNameIdentifier {
  nameIdentifier: string;
  nameIdentifierScheme: 'ORCID' | 'ROR';
  schemeUri: string;
}

export interface DataCiteAffiliation {
  name: string;
  affiliationIdentifier?: string;
  affiliationIdentifierScheme?: 'ROR';
  schemeUri?: string;
}

export interface DataCiteCreator {
  name: string;
  nameType?: 'Personal' | 'Organizational';
  givenName?: string;
  familyName?: string;
  nameIdentifiers?: DataCiteNameIdentifier[];
  affiliation?: DataCiteAffiliation[];
}

export interface DataCiteContributor extends DataCiteCreator {
  contributorType: string;
}

export interface DataCiteRelatedIdentifier {
  relatedIdentifier: string;
  relatedIdentifierType: 'DOI' | 'URL';
  relationType: DataCiteRelationType;
  resourceTypeGeneral?: 'PhysicalObject';
}

export interface DataCiteGeoLocation {
  geoLocationPlace?: string;
  geoLocationPoint?: { pointLongitude: number; pointLatitude: number };
  geoLocationBox?: {
    westBoundLongitude: number;
    eastBoundLongitude: number;
    southBoundLatitude: number;
    northBoundLatitude: number;
  };
}

export interface DataCiteAttributes {
  doi: string;
  creators: DataCiteCreator[];
  titles: { title: string; titleType?: 'AlternativeTitle' }[];
  publisher: string;
  publicationYear: number;
  types: { resourceTypeGeneral: 'PhysicalObject'; resourceType: string };
  subjects: { subject: string }[];
  contributors: DataCiteContributor[];
  dates: { date: string; dateType: 'Collected' | 'Created' | 'Updated' | 'Available' }[];
  alternateIdentifiers: { alternateIdentifier: string; alternateIdentifierType: 'Local' }[];
  relatedIdentifiers: DataCiteRelatedIdentifier[];
  sizes: string[];
  rightsList: { rights: string; rightsUri?: string; rightsIdentifier?: string; rightsIdentifierScheme?: string }[];
  descriptions: { description: string; descriptionType: 'Abstract' | 'Methods' | 'Other' }[];
  geoLocations: DataCiteGeoLocation[];
}

/** Facts about a sample that live in other rows: its children, for `HasPart`. */
export interface DataCiteRelatives {
  /** IGSNs (DOI form) of the sample's public children. */
  children?: readonly string[];
}

/** An object without its undefined properties, so JSON and XML both leave absent values out. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

function optional(value: string | null | undefined): string | undefined {
  return present(value) ?? undefined;
}

function creator(party: Party | { name: string; nameType?: undefined }): DataCiteCreator {
  const full = 'displayName' in party ? party : null;
  const identifier = full?.identifier;
  const affiliation = full?.affiliation;
  return defined({
    name: party.name,
    nameType: party.nameType,
    givenName: optional(full?.givenName),
    familyName: optional(full?.familyName),
    nameIdentifiers: identifier
      ? [
          {
            nameIdentifier: identifier.url,
            nameIdentifierScheme: identifier.scheme,
            schemeUri: identifier.scheme === 'ORCID' ? 'https://orcid.org' : 'https://ror.org',
          },
        ]
      : undefined,
    affiliation: affiliation
      ? [
          affiliation.ror
            ? {
                name: affiliation.name,
                affiliationIdentifier: affiliation.ror,
                affiliationIdentifierScheme: 'ROR' as const,
                schemeUri: 'https://ror.org',
              }
            : { name: affiliation.name },
        ]
      : undefined,
  });
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
function geoLocation(sample: SampleDto): DataCiteGeoLocation | null {
  const { latitude, longitude, end_latitude: endLatitude, end_longitude: endLongitude } = sample;
  const hasPoint = latitude !== null && longitude !== null;
  const hasTrack = hasPoint && endLatitude !== null && endLongitude !== null;
  let box: DataCiteGeoLocation['geoLocationBox'];
  if (hasTrack && (endLatitude !== latitude || endLongitude !== longitude)) {
    // A track across the antimeridian is the short way round: its west bound is east of its east bound.
    const crosses = Math.abs(endLongitude - longitude) > 180;
    box = {
      westBoundLongitude: crosses ? Math.max(longitude, endLongitude) : Math.min(longitude, endLongitude),
      eastBoundLongitude: crosses ? Math.min(longitude, endLongitude) : Math.max(longitude, endLongitude),
      southBoundLatitude: Math.min(latitude, endLatitude),
      northBoundLatitude: Math.max(latitude, endLatitude),
    };
  }
  const location = defined({
    geoLocationPlace: placeName(sample) ?? undefined,
    geoLocationPoint: hasPoint ? { pointLongitude: longitude, pointLatitude: latitude } : undefined,
    geoLocationBox: box,
  });
  return Object.keys(location).length ? location : null;
}

/**
 * The DataCite description of a sample (resourceTypeGeneral PhysicalObject), mapped as the
 * registry's DataCite mapping describes (docs/integrations/metadata-formats.md).
 */
export function dataCiteAttributes(
  sample: SampleDto,
  options: MetadataFormatOptions,
  relatives: DataCiteRelatives = {},
): DataCiteAttributes {
  const objectType = present(sample.object_type_path) ?? present(sample.object_type) ?? 'Sample';
  const materials = materialPaths(sample);
  const publisher = present(options.publisher) ?? REGISTRY_PUBLISHER;
  const collectors = collectorParties(sample);
  const longTitle = presentAll([sample.name, objectType, ...materials, sample.field_name]).join(' ');
  const contactName = present(sample.current_archive_contact);
  const dates: DataCiteAttributes['dates'] = [];
  const addDate = (date: string | null, dateType: DataCiteAttributes['dates'][number]['dateType']) => {
    if (date) dates.push({ date, dateType });
  };
  addDate(collectionPeriod(sample), 'Collected');
  addDate(dateOnly(sample.created_at), 'Created');
  addDate(dateOnly(sample.updated_at), 'Updated');
  addDate(dateOnly(sample.publish_date), 'Available');

  const relatedIdentifiers: DataCiteRelatedIdentifier[] = [];
  if (present(sample.parent_sample)) {
    relatedIdentifiers.push({
      relatedIdentifier: sample.parent_sample as string,
      relatedIdentifierType: 'DOI',
      relationType: 'IsPartOf',
      resourceTypeGeneral: 'PhysicalObject',
    });
  }
  for (const child of relatives.children ?? []) {
    relatedIdentifiers.push({
      relatedIdentifier: child,
      relatedIdentifierType: 'DOI',
      relationType: 'HasPart',
      resourceTypeGeneral: 'PhysicalObject',
    });
  }
  for (const resource of sample.related_resources) {
    // A related resource object's uri_type decides (SESAR's mapping): a local file is not sent, a
    // DOI stays a DOI (also written bare), anything else is a URL (doi.org URLs are DOIs anyway).
    if (resource.uri_type === 'local file') continue;
    const bareDoi = resource.uri_type === 'DOI' && isBareDoi(resource.uri.trim());
    const identifier = bareDoi
      ? { type: 'DOI' as const, value: resource.uri.trim() }
      : resourceIdentifier(resource.uri);
    if (identifier.value === '') continue;
    relatedIdentifiers.push({
      relatedIdentifier: identifier.value,
      relatedIdentifierType: identifier.type,
      relationType: dataCiteRelationType(resource.relation_type),
    });
  }

  const contributors: DataCiteContributor[] = [];
  const archive = present(sample.current_archive?.label);
  if (archive) contributors.push({ ...creator(organization(archive)), contributorType: 'HostingInstitution' });
  if (contactName) contributors.push({ ...creator({ name: contactName }), contributorType: 'ContactPerson' });

  const abstract = present(sample.sample_description);
  const method = presentAll([sample.sampling_method, sample.sampling_method_detail]).join(': ');
  const locationMethod = present(sample.location_method);
  const descriptions: DataCiteAttributes['descriptions'] = [
    ...(abstract ? [{ description: abstract, descriptionType: 'Abstract' as const }] : []),
    ...(method ? [{ description: method, descriptionType: 'Methods' as const }] : []),
    ...(locationMethod
      ? [{ description: `Location method: ${locationMethod}`, descriptionType: 'Methods' as const }]
      : []),
    ...otherFacts(sample).map((fact) => ({ description: fact, descriptionType: 'Other' as const })),
  ];
  const location = geoLocation(sample);
  const size = sizeText(sample);
  const rights = options.rights;

  return {
    doi: sample.igsn,
    creators: (collectors.length ? collectors : [organization(publisher)]).map(creator),
    titles: [
      { title: sample.name },
      ...(longTitle !== present(sample.name) ? [{ title: longTitle, titleType: 'AlternativeTitle' as const }] : []),
    ],
    publisher,
    publicationYear: Number((sample.publish_date ?? sample.created_at).slice(0, 4)),
    types: { resourceTypeGeneral: 'PhysicalObject', resourceType: objectType },
    subjects: presentAll([objectType, sample.geologic_age_verbatim, ...materials]).map((subject) => ({ subject })),
    contributors,
    dates,
    // SESAR's mapping: the external sample ID, then every other name, as Local identifiers.
    alternateIdentifiers: presentAll([sample.external_sample_id, ...sample.other_names]).map((name) => ({
      alternateIdentifier: name,
      alternateIdentifierType: 'Local' as const,
    })),
    relatedIdentifiers,
    sizes: size ? [size] : [],
    rightsList: rights
      ? [
          defined({
            rights: rights.statement,
            rightsUri: rights.uri,
            rightsIdentifier: rights.identifier,
            rightsIdentifierScheme: rights.identifierScheme,
          }),
        ]
      : [],
    descriptions,
    geoLocations: location ? [location] : [],
  };
}
