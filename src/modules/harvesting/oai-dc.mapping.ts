import { DataCiteAttributes, DataCiteGeoLocation } from '../metadata-formats/datacite.mapping';
import { doiUrl } from '../../core/identifiers/persistent-identifiers';
import { XmlElement, element } from '../metadata-formats/xml-writer';

const OAI_DC_NAMESPACE = 'http://www.openarchives.org/OAI/2.0/oai_dc/';
const DC_NAMESPACE = 'http://purl.org/dc/elements/1.1/';

function coverage(location: DataCiteGeoLocation): string[] {
  const texts: string[] = [];
  if (location.geoLocationPlace) texts.push(location.geoLocationPlace);
  const point = location.geoLocationPoint;
  if (point) texts.push(`${point.pointLatitude}, ${point.pointLongitude} (latitude, longitude, WGS84)`);
  const box = location.geoLocationBox;
  if (box) {
    texts.push(
      `${box.southBoundLatitude}, ${box.westBoundLongitude} to ${box.northBoundLatitude}, ${box.eastBoundLongitude} ` +
        '(south-west to north-east, latitude, longitude, WGS84)',
    );
  }
  return texts;
}

/**
 * Simple Dublin Core of a sample, crosswalked from its DataCite attributes (the one mapping of a
 * sample to a citation record, datacite.mapping.ts) the way DataCite's own OAI-PMH service does:
 * titles, creators, subjects, descriptions, publisher, dates, type, identifiers (DOI URL and landing
 * page), relations, coverage. `landingUrl` is the sample's public page.
 */
export function oaiDcElement(attributes: DataCiteAttributes, landingUrl: string): XmlElement | null {
  const dc = (name: string, values: (string | number | undefined)[]) =>
    values.map((value) => element(`dc:${name}`, {}, value === undefined ? undefined : String(value)));
  return element(
    'oai_dc:dc',
    {
      'xmlns:oai_dc': OAI_DC_NAMESPACE,
      'xmlns:dc': DC_NAMESPACE,
      'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      'xsi:schemaLocation': `${OAI_DC_NAMESPACE} http://www.openarchives.org/OAI/2.0/oai_dc.xsd`,
    },
    dc(
      'title',
      attributes.titles.map((title) => title.title),
    ),
    dc(
      'creator',
      attributes.creators.map((creator) => creator.name),
    ),
    dc(
      'subject',
      attributes.subjects.map((subject) => subject.subject),
    ),
    dc(
      'description',
      attributes.descriptions.map((description) => description.description),
    ),
    dc('publisher', [attributes.publisher]),
    dc(
      'contributor',
      attributes.contributors.map((contributor) => contributor.name),
    ),
    dc('date', [attributes.publicationYear, ...attributes.dates.map((date) => `${date.dateType}: ${date.date}`)]),
    dc('type', [attributes.types.resourceTypeGeneral, attributes.types.resourceType]),
    dc('format', attributes.sizes),
    dc('identifier', [doiUrl(attributes.doi), landingUrl]),
    dc(
      'relation',
      attributes.relatedIdentifiers.map((related) =>
        related.relatedIdentifierType === 'DOI' ? doiUrl(related.relatedIdentifier) : related.relatedIdentifier,
      ),
    ),
    dc('coverage', attributes.geoLocations.flatMap(coverage)),
    dc(
      'rights',
      attributes.rightsList.map((rights) => rights.rights),
    ),
  );
}
