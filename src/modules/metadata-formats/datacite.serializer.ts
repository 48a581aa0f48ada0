import { SampleDto } from '../samples';
import {
  DataCiteAttributes,
  DataCiteContributor,
  DataCiteCreator,
  DataCiteRelatives,
  dataCiteAttributes,
} from './datacite.mapping';
import { MetadataFormatOptions } from './metadata-options';
import { XmlElement, element, serializeXml } from './xml-writer';

export { DATACITE_RELATION_TYPES, DataCiteRelationType, dataCiteRelationType } from './datacite.mapping';

export const DATACITE_NAMESPACE = 'http://datacite.org/schema/kernel-4';
export const DATACITE_SCHEMA_LOCATION = `${DATACITE_NAMESPACE} https://schema.datacite.org/meta/kernel-4.6/metadata.xsd`;

function partyElement(tag: 'creator' | 'contributor', party: DataCiteCreator | DataCiteContributor): XmlElement | null {
  const identifier = party.nameIdentifiers?.[0];
  const affiliation = party.affiliation?.[0];
  return element(
    tag,
    { contributorType: 'contributorType' in party ? party.contributorType : undefined },
    element(`${tag}Name`, { nameType: party.nameType }, party.name),
    element('givenName', {}, party.givenName),
    element('familyName', {}, party.familyName),
    identifier &&
      element(
        'nameIdentifier',
        { nameIdentifierScheme: identifier.nameIdentifierScheme, schemeURI: identifier.schemeUri },
        identifier.nameIdentifier,
      ),
    affiliation &&
      element(
        'affiliation',
        {
          affiliationIdentifier: affiliation.affiliationIdentifier,
          affiliationIdentifierScheme: affiliation.affiliationIdentifierScheme,
          schemeURI: affiliation.schemeUri,
        },
        affiliation.name,
      ),
  );
}

/**
 * The DataCite Metadata Schema 4.6 document of a sample (resourceTypeGeneral PhysicalObject): the
 * attributes of the shared DataCite mapping (datacite.mapping.ts) written as XML. Empty properties
 * are left out; every value is escaped.
 */
export function toDataCiteXml(
  sample: SampleDto,
  options: MetadataFormatOptions,
  relatives?: DataCiteRelatives,
): string {
  return serializeXml(dataCiteResource(sample, options, relatives));
}

export function dataCiteResource(
  sample: SampleDto,
  options: MetadataFormatOptions,
  relatives?: DataCiteRelatives,
): XmlElement {
  return dataCiteXmlElement(dataCiteAttributes(sample, options, relatives));
}

export function dataCiteXmlElement(attributes: DataCiteAttributes): XmlElement {
  const a = attributes;
  const resource = element(
    'resource',
    {
      xmlns: DATACITE_NAMESPACE,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': DATACITE_SCHEMA_LOCATION,
    },
    element('identifier', { identifierType: 'DOI' }, a.doi),
    element(
      'creators',
      {},
      a.creators.map((party) => partyElement('creator', party)),
    ),
    element(
      'titles',
      {},
      a.titles.map((title) => element('title', { titleType: title.titleType }, title.title)),
    ),
    element('publisher', {}, a.publisher),
    element('publicationYear', {}, String(a.publicationYear)),
    element('resourceType', { resourceTypeGeneral: a.types.resourceTypeGeneral }, a.types.resourceType),
    element(
      'subjects',
      {},
      a.subjects.map((subject) => element('subject', {}, subject.subject)),
    ),
    element(
      'contributors',
      {},
      a.contributors.map((party) => partyElement('contributor', party)),
    ),
    element(
      'dates',
      {},
      a.dates.map((date) => element('date', { dateType: date.dateType }, date.date)),
    ),
    element(
      'alternateIdentifiers',
      {},
      a.alternateIdentifiers.map((id) =>
        element('alternateIdentifier', { alternateIdentifierType: id.alternateIdentifierType }, id.alternateIdentifier),
      ),
    ),
    element(
      'relatedIdentifiers',
      {},
      a.relatedIdentifiers.map((related) =>
        element(
          'relatedIdentifier',
          {
            relatedIdentifierType: related.relatedIdentifierType,
            relationType: related.relationType,
            resourceTypeGeneral: related.resourceTypeGeneral,
          },
          related.relatedIdentifier,
        ),
      ),
    ),
    element(
      'sizes',
      {},
      a.sizes.map((size) => element('size', {}, size)),
    ),
    element(
      'rightsList',
      {},
      a.rightsList.map((rights) =>
        element(
          'rights',
          {
            rightsURI: rights.rightsUri,
            rightsIdentifier: rights.rightsIdentifier,
            rightsIdentifierScheme: rights.rightsIdentifierScheme,
          },
          rights.rights,
        ),
      ),
    ),
    element(
      'descriptions',
      {},
      a.descriptions.map((description) =>
        element('description', { descriptionType: description.descriptionType }, description.description),
      ),
    ),
    element(
      'geoLocations',
      {},
      a.geoLocations.map((location) => {
        const box = location.geoLocationBox;
        const point = location.geoLocationPoint;
        return element(
          'geoLocation',
          {},
          element('geoLocationPlace', {}, location.geoLocationPlace),
          point &&
            element(
              'geoLocationPoint',
              {},
              element('pointLongitude', {}, point.pointLongitude),
              element('pointLatitude', {}, point.pointLatitude),
            ),
          box &&
            element(
              'geoLocationBox',
              {},
              element('westBoundLongitude', {}, box.westBoundLongitude),
              element('eastBoundLongitude', {}, box.eastBoundLongitude),
              element('southBoundLatitude', {}, box.southBoundLatitude),
              element('northBoundLatitude', {}, box.northBoundLatitude),
            ),
        );
      }),
    ),
  );
  // identifier, creators, titles, publisher, year and resource type are always present.
  return resource as XmlElement;
}
