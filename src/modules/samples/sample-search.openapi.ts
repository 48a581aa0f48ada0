import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';

const DATE_BOUND =
  'YYYY, YYYY-MM or YYYY-MM-DD (UTC; the whole year, month or day) or an ISO 8601 date-time with its zone';

/**
 * The OpenAPI description of the search filters added for issue 13, shared by GET /api/samples/
 * (query parameters) and the export request (body properties), so both say the same.
 */
export const SAMPLE_FILTER_DOCS = {
  registry_code: {
    description: 'Registry code(s), comma-separated, any case (an unknown code is a 400)',
    example: 'IEABC,IEXYZ',
  },
  parent: {
    description:
      'IGSN of a parent sample (suffix or DOI form, any case): its subsamples. A 400 when no sample with this ' +
      'IGSN is visible to the caller',
    example: '10.5072/IEABC0001',
  },
  collector: {
    description:
      "A collector's ORCID iD (bare or as https://orcid.org/… URL: exact match) or a substring of the person's " +
      "or institution's name (case and accents ignored)",
    example: '0000-0002-1825-0097',
  },
  bbox: {
    description:
      'minLon,minLat,maxLon,maxLat in decimal degrees (WGS84), bounds included, on the sample latitude and ' +
      'longitude; minLon > maxLon crosses the antimeridian. Samples without coordinates never match',
    example: '-10.5,51.4,-5.4,55.4',
  },
  sampling_date_from: {
    description: `Samples whose sampling period (start to end date) reaches this date or later: ${DATE_BOUND}`,
    example: '2020',
  },
  sampling_date_to: {
    description: `Samples whose sampling period began on or before this date: ${DATE_BOUND}`,
    example: '2024-06-30',
  },
  created_from: { description: `Registered on or after: ${DATE_BOUND}`, example: '2025-01-01' },
  created_to: { description: `Registered on or before: ${DATE_BOUND}`, example: '2025-12-31' },
} as const;

/** The filters above as optional string query parameters. */
export const ApiSampleFilterQueries = (): MethodDecorator =>
  applyDecorators(
    ...Object.entries(SAMPLE_FILTER_DOCS).map(([name, doc]) =>
      ApiQuery({ name, required: false, description: doc.description, example: doc.example, type: String }),
    ),
  );
