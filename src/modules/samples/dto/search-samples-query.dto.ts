import { plainToInstance } from 'class-transformer';
import { IsOptional, ValidateBy, ValidationArguments, ValidationError, validateSync } from 'class-validator';
import { ApiError } from '../../../core/http/api-error';
import { textLength } from '../../../core/http/text-length';
import { STORE_STATUSES, StoreStatus } from '../sample.entity';
import {
  BoundingBox,
  SAMPLE_FILTER_DOCS,
  SAMPLE_SEARCH_FILTERS,
  SampleFilterName,
  parseBoundingBox,
  parseDateBound,
  parseDateRange,
  parseListParameter,
} from '../sample-search';
import { SEARCH_SCOPES, SearchScope } from './sample-write.dto';

/** The longest `q`, `name` or `igsn`. */
const TEXT_FILTER_MAX = 255;

/** The problem a parse function of sample-search.ts reports for `field`, or undefined when the value is good. */
function problemOf(field: string, parse: () => unknown): string | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.fieldErrors[field]?.[0] ?? error.message;
    throw error;
  }
}

/**
 * One check of a search parameter, with the message the search has always answered: `check`
 * returns the problem (the text after `Invalid <field>: `) or undefined.
 */
function SearchParameter(check: (value: string, query: SearchSamplesQueryDto) => string | undefined) {
  return ValidateBy({
    name: 'searchParameter',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        typeof value === 'string' && check(value, args?.object as SearchSamplesQueryDto) === undefined,
      defaultMessage: (args?: ValidationArguments) =>
        typeof args?.value !== 'string'
          ? 'give this parameter once'
          : (check(args.value, args.object as SearchSamplesQueryDto) ?? ''),
    },
  });
}

/** A free-text filter (`q`, `name`, `igsn`): blank is no filter; at most 255 characters. */
const textFilter = () =>
  SearchParameter((value) =>
    value.trim() !== '' && textLength(value) > TEXT_FILTER_MAX
      ? `must be at most ${TEXT_FILTER_MAX} characters`
      : undefined,
  );

/** The length check of the filters of issue 13 (trimmed, as documented in SAMPLE_FILTER_DOCS). */
function filterTooLong(name: SampleFilterName, value: string): string | undefined {
  const { maxLength } = SAMPLE_FILTER_DOCS[name];
  return textLength(value.trim()) > maxLength ? `must be at most ${maxLength} characters` : undefined;
}

const documentedFilter = (name: SampleFilterName, more?: (trimmed: string) => string | undefined) =>
  SearchParameter((value) => filterTooLong(name, value) ?? (value.trim() && more ? more(value.trim()) : undefined));

/** A date bound: the bound itself, then (on `_from`, given its pair) that the range does not end before it starts. */
const dateBound = (name: SampleFilterName, pair?: 'sampling_date_to' | 'created_to') =>
  SearchParameter((value, query) => {
    const own =
      filterTooLong(name, value) ?? (value.trim() ? problemOf(name, () => parseDateBound(value, name)) : undefined);
    if (own !== undefined || !pair || !value.trim()) return own;
    const to = query[pair];
    // A `_to` with a problem of its own reports it under its own name.
    if (typeof to !== 'string' || !to.trim() || filterTooLong(pair, to)) return undefined;
    if (problemOf(pair, () => parseDateBound(to, pair))) return undefined;
    return problemOf(name, () => parseDateRange(value, to, { from: name, to: pair }));
  });

/** A period between two date bounds, either open. */
export type TimeBounds = NonNullable<ReturnType<typeof parseDateRange>>;

/** The search as the caller's filters, parsed into values (SearchSamplesQueryDto.criteria). */
export interface SearchCriteria {
  /** As given; undefined when not given (the caller's default applies). */
  scope?: SearchScope;
  isDraft?: boolean;
  q?: string;
  name?: string;
  igsn?: string;
  objectTypes: string[];
  /** Upper-cased ISO 3166-1 alpha-2 codes. */
  countries: string[];
  /** Upper-cased registry codes. */
  registryCodes: string[];
  parent?: string;
  collector?: string;
  storeStatus?: StoreStatus;
  externalSampleId?: string;
  bbox?: BoundingBox;
  sampling?: TimeBounds;
  created?: TimeBounds;
}

/**
 * The sample search's parameters — GET /api/samples/'s query, an export's and a label sheet's
 * search, and the search a job stores — checked in one place, with the messages the search has
 * always answered (`Invalid <field>: <problem>.`, the first problem found, in this order). Values
 * are text as sent; `criteria()` gives them parsed.
 */
export class SearchSamplesQueryDto {
  @IsOptional()
  @SearchParameter((value) =>
    (SEARCH_SCOPES as readonly string[]).includes(value) ? undefined : `must be one of ${SEARCH_SCOPES.join(', ')}`,
  )
  scope?: string;

  @IsOptional()
  @SearchParameter((value) => (value === 'true' || value === 'false' ? undefined : 'must be true or false'))
  is_draft?: string;

  @IsOptional()
  @textFilter()
  q?: string;

  @IsOptional()
  @textFilter()
  name?: string;

  @IsOptional()
  @textFilter()
  igsn?: string;

  @IsOptional()
  @SearchParameter((value) => problemOf('object_type', () => parseListParameter(value, 'object_type')))
  object_type?: string;

  @IsOptional()
  @SearchParameter((value) => {
    let codes: string[] = [];
    const tooMany = problemOf('country', () => (codes = parseListParameter(value, 'country', upper)));
    if (tooMany) return tooMany;
    const malformed = codes.find((code) => !/^[A-Z]{2}$/.test(code));
    return malformed === undefined ? undefined : `"${malformed}" is not an ISO 3166-1 alpha-2 code`;
  })
  country?: string;

  @IsOptional()
  @documentedFilter('registry_code', (trimmed) =>
    problemOf('registry_code', () => parseListParameter(trimmed, 'registry_code', upper)),
  )
  registry_code?: string;

  @IsOptional()
  @documentedFilter('parent')
  parent?: string;

  @IsOptional()
  @documentedFilter('collector')
  collector?: string;

  @IsOptional()
  @documentedFilter('metadata_store_status', (trimmed) =>
    (STORE_STATUSES as readonly string[]).includes(trimmed) ? undefined : `must be one of ${STORE_STATUSES.join(', ')}`,
  )
  metadata_store_status?: string;

  @IsOptional()
  @documentedFilter('external_sample_id')
  external_sample_id?: string;

  @IsOptional()
  @documentedFilter('bbox', (trimmed) => problemOf('bbox', () => parseBoundingBox(trimmed)))
  bbox?: string;

  @IsOptional()
  @dateBound('sampling_date_from', 'sampling_date_to')
  sampling_date_from?: string;

  @IsOptional()
  @dateBound('sampling_date_to')
  sampling_date_to?: string;

  @IsOptional()
  @dateBound('created_from', 'created_to')
  created_from?: string;

  @IsOptional()
  @dateBound('created_to')
  created_to?: string;

  /**
   * The search parameters among `input` (other keys, such as the page, are left to their owner) as
   * a checked DTO; a bad value is a 400 `Invalid <field>: <problem>.` naming the first one.
   */
  static parse(input: object): SearchSamplesQueryDto {
    const given = input as Record<string, unknown>;
    const known = Object.fromEntries(
      SAMPLE_SEARCH_FILTERS.filter((key) => given[key] !== undefined).map((key) => [key, given[key]]),
    );
    // Every parameter is optional: nothing given (the plain list, every page of it) has nothing to check.
    if (Object.keys(known).length === 0) return new SearchSamplesQueryDto();
    const dto = plainToInstance(SearchSamplesQueryDto, known, { enableImplicitConversion: false });
    const [first] = validateSync(dto, { forbidUnknownValues: false, stopAtFirstError: true });
    if (first) throw ApiError.invalidField(first.property, firstProblem(first));
    return dto;
  }

  /**
   * A search stored in a job's payload, or undefined when it is not one: only search parameters,
   * each text. A parameter this version does not know would be dropped silently, reading more
   * samples than were asked for.
   */
  static readStored(value: unknown): SearchSamplesQueryDto | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const known: readonly string[] = SAMPLE_SEARCH_FILTERS;
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    if (entries.some(([key, item]) => !known.includes(key) || typeof item !== 'string')) return undefined;
    return plainToInstance(SearchSamplesQueryDto, Object.fromEntries(entries));
  }

  /** The parameters as values. Only for a DTO that passed `parse`: the checks are not repeated. */
  criteria(): SearchCriteria {
    const text = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
    return {
      scope: this.scope as SearchScope | undefined,
      isDraft: this.is_draft === undefined ? undefined : this.is_draft === 'true',
      q: text(this.q),
      name: text(this.name),
      igsn: text(this.igsn),
      objectTypes: parseListParameter(this.object_type, 'object_type'),
      countries: parseListParameter(this.country, 'country', upper),
      registryCodes: parseListParameter(text(this.registry_code), 'registry_code', upper),
      parent: text(this.parent),
      collector: text(this.collector),
      storeStatus: text(this.metadata_store_status) as StoreStatus | undefined,
      externalSampleId: text(this.external_sample_id),
      bbox: text(this.bbox) === undefined ? undefined : parseBoundingBox(this.bbox?.trim() ?? ''),
      sampling: parseDateRange(text(this.sampling_date_from), text(this.sampling_date_to), {
        from: 'sampling_date_from',
        to: 'sampling_date_to',
      }),
      created: parseDateRange(text(this.created_from), text(this.created_to), {
        from: 'created_from',
        to: 'created_to',
      }),
    };
  }
}

function upper(code: string): string {
  return code.toUpperCase();
}

function firstProblem(error: ValidationError): string {
  return Object.values(error.constraints ?? {})[0] ?? 'is not valid';
}
