import { ApiError } from '../../core/http/api-error';
import { orcidId } from '../../core/identifiers/persistent-identifiers';

/**
 * The query parameters of GET /api/samples/ (and of POST /api/samples/export/, which adds
 * `format`), as sent: text. SearchSamplesQueryDto checks and parses them (SampleSearchService).
 */
export interface SampleSearchQuery {
  q?: string;
  name?: string;
  igsn?: string;
  object_type?: string;
  country?: string;
  scope?: string;
  is_draft?: string;
  registry_code?: string;
  parent?: string;
  collector?: string;
  bbox?: string;
  sampling_date_from?: string;
  sampling_date_to?: string;
  created_from?: string;
  created_to?: string;
  metadata_store_status?: string;
  external_sample_id?: string;
}

const DATE_BOUND =
  'YYYY, YYYY-MM or YYYY-MM-DD (UTC; the whole year, month or day) or an ISO 8601 date-time with its zone';

/**
 * The search filters added for issue 13 as documented (OpenAPI) and bounded: GET /api/samples/
 * (query parameters) and the export request (body properties) say and check the same.
 */
export const SAMPLE_FILTER_DOCS = {
  registry_code: {
    description: 'Registry code(s), comma-separated, any case (an unknown code is a 400)',
    example: 'IEABC,IEXYZ',
    maxLength: 2000,
  },
  parent: {
    description:
      'IGSN of a parent sample (suffix or DOI form, any case): its subsamples. A 400 when no sample with this ' +
      'IGSN is visible to the caller',
    example: '10.5072/IEABC0001',
    maxLength: 255,
  },
  collector: {
    description:
      "A collector's ORCID iD (bare or as https://orcid.org/… URL: exact match) or a substring of the person's " +
      "or institution's name (case and accents ignored)",
    example: '0000-0002-1825-0097',
    maxLength: 255,
  },
  bbox: {
    description:
      'minLon,minLat,maxLon,maxLat in decimal degrees (WGS84), bounds included, on the sample latitude and ' +
      'longitude; minLon > maxLon crosses the antimeridian. Samples without coordinates never match',
    example: '-10.5,51.4,-5.4,55.4',
    maxLength: 255,
  },
  sampling_date_from: {
    description: `Samples whose sampling period (start to end date) reaches this date or later: ${DATE_BOUND}`,
    example: '2020',
    maxLength: 64,
  },
  sampling_date_to: {
    description: `Samples whose sampling period began on or before this date: ${DATE_BOUND}`,
    example: '2024-06-30',
    maxLength: 64,
  },
  created_from: { description: `Registered on or after: ${DATE_BOUND}`, example: '2025-01-01', maxLength: 64 },
  created_to: { description: `Registered on or before: ${DATE_BOUND}`, example: '2025-12-31', maxLength: 64 },
  metadata_store_status: {
    description:
      'Only samples in this state: reserved, draft, pending-review or published. Reserved samples (IGSNs minted ' +
      'before fieldwork) are listed only when asked for this way',
    example: 'reserved',
    maxLength: 64,
  },
  external_sample_id: {
    description:
      "The client's own id of the sample (exact match, case kept): a client whose answer got lost finds its sample",
    example: 'FIELD-2024-0017',
    maxLength: 255,
  },
} as const satisfies Record<string, { description: string; example: string; maxLength: number }>;

export type SampleFilterName = keyof typeof SAMPLE_FILTER_DOCS;

/** Filters holding one value (text, an IGSN, a box, a date). */
export const SEARCH_VALUE_FILTERS = [
  'q',
  'name',
  'igsn',
  'parent',
  'collector',
  'bbox',
  'sampling_date_from',
  'sampling_date_to',
  'created_from',
  'created_to',
  'metadata_store_status',
  'external_sample_id',
] as const satisfies readonly (keyof SampleSearchQuery)[];

/** Filters holding a comma-separated list. */
export const SEARCH_LIST_FILTERS = [
  'object_type',
  'country',
  'registry_code',
] as const satisfies readonly (keyof SampleSearchQuery)[];

/** Every filter of the sample search. */
export const SAMPLE_SEARCH_FILTERS = [...SEARCH_VALUE_FILTERS, ...SEARCH_LIST_FILTERS, 'scope', 'is_draft'] as const;

/** The parameters GET /api/samples/ accepts: the filters and the page. */
const SEARCH_PARAMETERS: ReadonlySet<string> = new Set([...SAMPLE_SEARCH_FILTERS, 'page', 'page_size']);

/**
 * A 400 naming every parameter the search does not know: a misspelt filter (`registry=IEABC`)
 * must not quietly return the whole catalogue.
 */
export function refuseUnknownSearchParameters(names: string[]): void {
  const unknown = names.filter((name) => !SEARCH_PARAMETERS.has(name));
  if (!unknown.length) return;
  const problem = 'is not a search parameter';
  throw ApiError.badRequest(
    `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
    Object.fromEntries(unknown.map((name) => [name, [problem]])),
  );
}

/** Most values one list-valued parameter may hold (a caller must not choose the cost of a search). */
export const MAX_LIST_VALUES = 50;

/**
 * A comma-separated parameter's values: trimmed, blanks dropped, duplicates (after `normalise`)
 * dropped, in order; more than MAX_LIST_VALUES distinct values is a 400 naming the parameter.
 */
export function parseListParameter(
  value: string | undefined,
  field: string,
  normalise: (part: string) => string = (part) => part,
): string[] {
  const values = new Set<string>();
  for (const part of (value ?? '').split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    values.add(normalise(trimmed));
    if (values.size > MAX_LIST_VALUES) {
      throw ApiError.invalidField(field, `must list at most ${MAX_LIST_VALUES} distinct values`);
    }
  }
  return [...values];
}

/** A box of longitudes and latitudes; `minLon > maxLon` crosses the antimeridian. */
export interface BoundingBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

/** `minLon,minLat,maxLon,maxLat` in decimal degrees (WGS84), bounds included. */
export function parseBoundingBox(value: string): BoundingBox {
  const parts = value.split(',').map((part) => part.trim());
  const fail = (problem: string) => ApiError.invalidField('bbox', problem);
  if (parts.length !== 4 || parts.some((part) => !NUMBER.test(part))) {
    throw fail('must be four decimal numbers minLon,minLat,maxLon,maxLat');
  }
  const [minLon, minLat, maxLon, maxLat] = parts.map(Number);
  if ([minLon, maxLon].some((lon) => lon < -180 || lon > 180)) throw fail('longitudes must be between -180 and 180');
  if ([minLat, maxLat].some((lat) => lat < -90 || lat > 90)) throw fail('latitudes must be between -90 and 90');
  if (minLat > maxLat) throw fail('minLat must not be greater than maxLat');
  return { minLon, minLat, maxLon, maxLat };
}

/** A period of time: from `start` (included) to `end` (excluded). */
export interface Period {
  start: Date;
  end: Date;
}

const CALENDAR = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * The period a date bound names: a year (`2024`), a month (`2024-06`) or a day (`2024-06-01`) in
 * UTC, or one instant (a date-time with its zone). `_from` takes the period's start, `_to` its end,
 * so `sampling_date_to=2024` includes the whole of 2024.
 */
export function parseDateBound(value: string, field: string): Period {
  const text = value.trim();
  const fail = () =>
    ApiError.invalidField(
      field,
      'must be a date (YYYY, YYYY-MM or YYYY-MM-DD, UTC) or an ISO 8601 date-time with zone',
    );
  const calendar = CALENDAR.exec(text);
  if (calendar) {
    const [year, month, day] = [Number(calendar[1]), Number(calendar[2] ?? 1), Number(calendar[3] ?? 1)];
    const start = new Date(Date.UTC(year, month - 1, day));
    // Date.UTC rolls 2024-02-30 over into March: a date that does not exist is refused.
    if (month < 1 || month > 12 || start.getUTCMonth() !== month - 1 || start.getUTCDate() !== day) throw fail();
    start.setUTCFullYear(year); // years 0-99 are taken as 1900-1999 by Date.UTC
    const end = new Date(start);
    if (calendar[3] !== undefined) end.setUTCDate(end.getUTCDate() + 1);
    else if (calendar[2] !== undefined) end.setUTCMonth(end.getUTCMonth() + 1);
    else end.setUTCFullYear(end.getUTCFullYear() + 1);
    return { start, end };
  }
  const instant = DATE_TIME.test(text) ? new Date(text) : undefined;
  if (!instant || Number.isNaN(instant.getTime())) throw fail();
  return { start: instant, end: new Date(instant.getTime() + 1) };
}

/**
 * The range `[from, to)` of a pair of date bounds (either may be missing), or undefined when both
 * are; a range that ends before it starts is a 400 on the `_from` parameter.
 */
export function parseDateRange(
  from: string | undefined,
  to: string | undefined,
  names: { from: string; to: string },
): { from?: Date; to?: Date } | undefined {
  const start = from?.trim() ? parseDateBound(from, names.from).start : undefined;
  const end = to?.trim() ? parseDateBound(to, names.to).end : undefined;
  if (!start && !end) return undefined;
  if (start && end && start >= end) throw ApiError.invalidField(names.from, `must not be after ${names.to}`);
  return { from: start, to: end };
}

/** The bare ORCID iD (`0000-0002-1825-0097`) when the value is one, bare or as a URL; else undefined. */
export function orcidOf(value: string): string | undefined {
  return orcidId(value) ?? undefined;
}
