import { doiUrl, resourceIdentifier } from '../../core/identifiers/persistent-identifiers';
import { SampleDto } from '../samples';
import { dataCiteRelationType } from './datacite.mapping';
import { sampleLandingUrl } from '../samples';
import { MetadataFormatOptions, REGISTRY_PUBLISHER } from './metadata-options';
import {
  Party,
  collectionPeriod,
  collectorParties,
  materialPaths,
  organization,
  placeName,
  present,
  presentAll,
  sizeText,
} from './sample-metadata';

export type JsonLdValue = string | number | boolean | null | undefined | JsonLdObject | JsonLdValue[];
export interface JsonLdObject {
  [key: string]: JsonLdValue;
}

/** Drops null, undefined, blank strings, empty lists and objects left with nothing but `@type`. */
function compact(value: JsonLdValue): JsonLdValue {
  if (Array.isArray(value)) {
    const items = value.map(compact).filter((item) => item !== undefined);
    return items.length ? items : undefined;
  }
  if (value !== null && typeof value === 'object') {
    const result: JsonLdObject = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = compact(item);
      if (kept !== undefined) result[key] = kept;
    }
    return Object.keys(result).some((key) => key !== '@type') ? result : undefined;
  }
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  return value;
}

/** A one-element list is written as its element, as JSON-LD readers expect either. */
function oneOrMany(values: JsonLdValue[]): JsonLdValue {
  return values.length === 1 ? values[0] : values;
}

function igsnIdentifier(doi: string): JsonLdObject {
  return { '@type': 'PropertyValue', propertyID: 'IGSN', value: doi, url: doiUrl(doi) };
}

function agent(party: Party): JsonLdObject {
  if (party.nameType === 'Organizational') {
    return { '@type': 'Organization', '@id': party.identifier?.url, name: party.displayName };
  }
  return {
    '@type': 'Person',
    '@id': party.identifier?.url,
    name: party.displayName,
    givenName: party.givenName,
    familyName: party.familyName,
    affiliation: party.affiliation && {
      '@type': 'Organization',
      '@id': party.affiliation.ror,
      name: party.affiliation.name,
    },
  };
}

const UNIT_SYMBOLS: Record<string, string> = { meters: 'm', kilometers: 'km', feet: 'ft', miles: 'mi' };

/** schema.org elevation: a number in metres, or `NUMBER UNIT` for other units. */
function elevation(sample: SampleDto): JsonLdValue {
  if (sample.elevation === null) return undefined;
  const unit = sample.elevation_unit;
  return !unit || unit === 'meters' ? sample.elevation : `${sample.elevation} ${UNIT_SYMBOLS[unit] ?? unit}`;
}

function spatialCoverage(sample: SampleDto): JsonLdObject {
  const { latitude, longitude, end_latitude: endLatitude, end_longitude: endLongitude } = sample;
  let geo: JsonLdObject | undefined;
  if (latitude !== null && longitude !== null) {
    geo =
      endLatitude !== null && endLongitude !== null
        ? {
            '@type': 'GeoShape',
            line: `${latitude} ${longitude} ${endLatitude} ${endLongitude}`,
            elevation: elevation(sample),
          }
        : { '@type': 'GeoCoordinates', latitude, longitude, elevation: elevation(sample) };
  }
  return {
    '@type': 'Place',
    name: placeName(sample),
    description: sample.location_description,
    address: {
      '@type': 'PostalAddress',
      addressLocality: sample.city,
      addressRegion: sample.province,
      addressCountry: sample.country,
    },
    geo,
  };
}

/**
 * The schema.org JSON-LD description of a sample. Typed `CreativeWork`, the type DataCite's own
 * schema.org output gives a PhysicalObject DOI and the one science-on-schema.org uses for physical
 * samples: every property below (spatialCoverage, creator, material, isPartOf, …) is in its domain.
 * The object type is the `additionalType`.
 */
export function toSchemaOrgJsonLd(sample: SampleDto, options: MetadataFormatOptions): JsonLdObject {
  const collectors = collectorParties(sample);
  const publisher = present(options.publisher) ?? REGISTRY_PUBLISHER;
  const sameAs: string[] = [];
  const isPartOf: JsonLdObject[] = [];
  const subjectOf: JsonLdObject[] = [];

  if (sample.parent_sample) {
    isPartOf.push({
      '@type': 'CreativeWork',
      '@id': doiUrl(sample.parent_sample),
      identifier: igsnIdentifier(sample.parent_sample),
    });
  } else if (present(sample.external_parent_name)) {
    isPartOf.push({
      '@type': 'CreativeWork',
      name: sample.external_parent_name,
      additionalType: sample.external_parent_object_type,
    });
  }
  for (const resource of sample.related_resources) {
    const identifier = resourceIdentifier(resource.uri);
    const url = identifier.type === 'DOI' ? doiUrl(identifier.value) : identifier.value;
    switch (dataCiteRelationType(resource.relation_type)) {
      case 'IsIdenticalTo':
        sameAs.push(url);
        break;
      case 'IsPartOf':
        isPartOf.push({ '@type': 'CreativeWork', '@id': url, url, description: resource.description });
        break;
      default:
        subjectOf.push({ '@type': 'CreativeWork', '@id': url, url, description: resource.description });
    }
  }

  const document: JsonLdObject = {
    '@context': 'https://schema.org/',
    '@type': 'CreativeWork',
    '@id': doiUrl(sample.igsn),
    identifier: igsnIdentifier(sample.igsn),
    url: options.baseUrl ? sampleLandingUrl(options.baseUrl, sample.igsn) : undefined,
    name: sample.name,
    alternateName: oneOrMany(presentAll(sample.other_names)),
    description: sample.sample_description,
    additionalType: present(sample.object_type_path) ?? sample.object_type,
    material: oneOrMany(presentAll([sample.general_material_type, ...sample.material_types])),
    keywords: presentAll([
      present(sample.object_type_path) ?? sample.object_type,
      sample.geologic_age_verbatim,
      sample.geologic_unit,
      ...materialPaths(sample),
    ]),
    size: sizeText(sample),
    spatialCoverage: spatialCoverage(sample),
    temporalCoverage: collectionPeriod(sample),
    dateCreated: sample.created_at,
    dateModified: sample.updated_at,
    datePublished: sample.publish_date,
    creator: oneOrMany(collectors.length ? collectors.map(agent) : [agent(organization(publisher))]),
    contributor: sample.current_archive
      ? {
          '@type': 'Role',
          roleName: 'HostingInstitution',
          contributor: { '@type': 'Organization', name: sample.current_archive.label },
        }
      : undefined,
    publisher: { '@type': 'Organization', name: publisher },
    isPartOf: oneOrMany(isPartOf),
    sameAs: oneOrMany(sameAs),
    subjectOf: oneOrMany(subjectOf),
  };
  return compact(document) as JsonLdObject;
}
