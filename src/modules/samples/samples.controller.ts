import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiExcludeEndpoint,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiGoneResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  AuthenticatedUser,
  CurrentCaller,
  CurrentUser,
  RequestCaller,
  isUncheckedCaller,
} from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { TokenCheckedInStatement } from '../../core/auth/token-checked-in-statement.decorator';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';
import { refuseUnknownQueryParameters } from '../../core/http/unknown-query-parameters';
import { ApiPageQuery, paginate, parsePageRequest } from '../../core/http/pagination';
import { publicBaseUrl } from '../../core/http/public-address';
import { ApiNotModifiedResponse, CacheAudience, cacheRead, strongEtag } from '../../core/http/http-cache';
import { REGISTRY_PUBLISHER } from '../metadata-formats/metadata-options';
import { negotiateSampleFormat, renderSample } from '../metadata-formats/sample-formats';
import { ApiSampleRepresentations } from '../metadata-formats/sample-formats.openapi';
import {
  CreateSampleDto,
  RelatedResourceDto,
  RelatedResourceRefDto,
  SEARCH_SCOPES,
  UpdateSampleDto,
} from './dto/sample-write.dto';
import { SampleDeactivationDto } from './dto/sample-deactivation.dto';
import { SampleGoneBody, SampleLookupListResponse } from './dto/sample-lookup.dto';
import { SAMPLE_ORDERING_VALUES, parseSampleOrdering } from './sample-ordering';
import { withoutSearchAliases } from './sample-search-aliases';
import { SampleListResponse, SampleResponse } from './dto/sample.dto';
import { ApiIgsnPath } from './igsn-path.openapi';
import { ApiSampleFilterQueries } from './sample-search.openapi';
import { refuseUnknownSearchParameters } from './sample-search';
import { SampleSearchService, searchesText } from './sample-search.service';
import { SampleDeactivation } from './sample-deactivation';
import { SampleReader } from './sample-reader';
import { ListPage, PublicListCache } from './public-list-cache';
import { SampleWriter } from './write/sample-writer';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';

const NOT_FOUND = { type: ErrorBody, example: { message: 'Sample not found.', errors: {} } };
const INVALID = {
  type: ErrorBody,
  example: { message: 'Validation failed: latitude.', errors: { latitude: ['is required to publish a sample'] } },
};

/** `{igsn}` may be the bare suffix or the DOI form with its slash: both route shapes lead here. */
function igsnOf(params: { igsn?: string; prefix?: string; suffix?: string }): string {
  return params.prefix !== undefined ? `${params.prefix}/${params.suffix ?? ''}` : (params.igsn ?? '');
}

/** What `/api/samples/{igsn}/` answers to (HEAD comes with GET). */
const SAMPLE_METHODS = 'GET, HEAD, PATCH';

function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    HttpStatus.METHOD_NOT_ALLOWED,
    `${method} is not allowed on a sample; PATCH changes it and POST …/deactivate/ retires it.`,
    {},
    { Allow: SAMPLE_METHODS },
  );
}

const GONE = {
  type: SampleGoneBody,
  description: 'Deactivated: the tombstone only, never the fields.',
  example: {
    message: 'Sample 10.5072/IEABC0001 was deactivated.',
    errors: {},
    tombstone: {
      igsn: '10.5072/IEABC0001',
      deactivation_date: '2026-11-22T10:00:00.000Z',
      deactivate_reason: 'duplicate igsn',
      duplicate_igsns: ['10.5072/IEABC0002'],
    },
  },
};

/** The most IGSNs one by-igsn lookup may name. */
const MAX_LOOKUP_IGSNS = 100;

/** The substring filters of the search (longer values are refused). */
const TEXT_FILTER = { type: 'string', maxLength: 255 } as const;

@ApiTags('samples')
// The shapes of `related_resources` items in writes (referenced from a oneOf).
@ApiExtraModels(RelatedResourceDto, RelatedResourceRefDto)
@Controller('samples')
export class SamplesController {
  constructor(
    private readonly sampleSearchService: SampleSearchService,
    private readonly sampleWriter: SampleWriter,
    private readonly reader: SampleReader,
    private readonly deactivation: SampleDeactivation,
    private readonly publicLists: PublicListCache,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiOperation({
    summary:
      'Search samples. Anonymous callers see public published samples; with a token the default scope is personal.',
  })
  @ApiQuery({
    name: 'q',
    required: false,
    description: 'Substring of the IGSN, the sample name or one of its other names',
    schema: TEXT_FILTER,
  })
  @ApiQuery({ name: 'search', required: false, description: "SESAR2's name for `q`", schema: TEXT_FILTER })
  @ApiQuery({
    name: 'ordering',
    required: false,
    description:
      'Order of the results (`-` for descending; the id breaks ties). Default: newest first. ' +
      '`registration_date` is `created_at`, `last_update_date` is `updated_at`.',
    schema: { type: 'string', enum: SAMPLE_ORDERING_VALUES },
  })
  @ApiQuery({ name: 'sesar_code', required: false, description: "SESAR2's name for `registry_code`", type: String })
  @ApiQuery({ name: 'name', required: false, description: 'Substring of the sample name', schema: TEXT_FILTER })
  @ApiQuery({ name: 'igsn', required: false, description: 'Substring of the IGSN', schema: TEXT_FILTER })
  @ApiQuery({ name: 'object_type', required: false, description: 'Leaf label(s), comma-separated', type: String })
  @ApiQuery({
    name: 'country',
    required: false,
    description: 'ISO 3166-1 alpha-2 code(s), comma-separated',
    schema: { type: 'string', pattern: '^[A-Za-z]{2}( *, *[A-Za-z]{2})*$' },
  })
  @ApiQuery({ name: 'scope', required: false, enum: SEARCH_SCOPES })
  @ApiQuery({ name: 'is_draft', required: false, enum: ['true', 'false'] })
  @ApiSampleFilterQueries()
  @ApiPageQuery({ defaultSize: 25, maxSize: 2000 })
  @ApiOkResponse({ type: SampleListResponse })
  @ApiNotModifiedResponse()
  @ApiBadRequestResponse({
    type: ErrorBody,
    description: 'A parameter with a bad value, or one the search does not know; `errors` names each.',
    example: {
      message: 'Unknown query parameters: registry, colour.',
      errors: { registry: ['is not a search parameter'], colour: ['is not a search parameter'] },
    },
  })
  async search(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Query() sent: Record<string, string | undefined>,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<SampleListResponse | string | undefined> {
    // SESAR2's names folded into ours first (`search` → `q`): what is searched decides what is kept.
    const searched = withoutSearchAliases(sent);
    if (user) {
      // With a token the page depends on the caller (scope, can_edit): their own client may keep it.
      const { etag, page } = await this.listPage(req, searched, user);
      if (cacheRead(req, res, etag, 'private', this.config.http.cacheMaxAgeSeconds)) return undefined;
      return page();
    }
    // Anonymous searches see public samples only: anyone may keep the page, this process too (for
    // LIST_CACHE_SECONDS), serialised once so that a repeat sends the same bytes without a search.
    // Text searches are not kept: their URLs seldom repeat, and their pages would push out those that do.
    const keep = !searchesText(searched.query);
    const answer = await this.publicLists.answer(req, () => this.listPage(req, searched, undefined), keep);
    if (cacheRead(req, res, answer.etag, 'shared', this.config.http.cacheMaxAgeSeconds)) return undefined;
    // What res.json would send for the object, without serialising it again.
    res.type('json');
    return answer.json();
  }

  /** A search's page: its tag now, its body only when asked (a current If-None-Match needs none). */
  private async listPage(
    req: Request,
    { query, ordering }: ReturnType<typeof withoutSearchAliases>,
    user: AuthenticatedUser | undefined,
  ): Promise<ListPage<SampleListResponse>> {
    refuseUnknownSearchParameters(Object.keys(query));
    const page = parsePageRequest(query, { defaultSize: 25, maxSize: 2000 });
    for (const [name, value] of Object.entries({ ...query, ordering })) {
      if (value !== undefined && typeof value !== 'string')
        throw ApiError.invalidField(name, 'give this parameter once');
    }
    const order = parseSampleOrdering(ordering as string | undefined);
    const { count, more, data } = await this.sampleSearchService.search(query, page, user, order);
    const etag = strongEtag([
      req.originalUrl,
      count.count,
      count.exact,
      more,
      publicBaseUrl(this.config.publicUrl, req),
      ...data.flatMap((sample) => [sample.id, sample.updated_at, JSON.stringify(sample.doi), sample.can_edit]),
    ]);
    return {
      etag,
      page: () => {
        const { count: total, ...rest } = paginate(req, page, count.count, data, more);
        return { count: total, count_exact: count.exact, ...rest };
      },
    };
  }

  @Post()
  @ApiBearerAuth('bearer')
  @ApiOperation({ summary: 'Register a sample (publishes unless is_draft is true). Omit igsn to mint one.' })
  @ApiCreatedResponse({ type: SampleResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'You may not register samples under registry code IEXYZ.', errors: {} },
  })
  @ApiConflictResponse({
    type: ErrorBody,
    example: { message: 'IGSN 10.5072/IEABC0001 is already registered.', errors: { igsn: ['already registered'] } },
  })
  async register(@Body() body: CreateSampleDto, @CurrentUser() user: AuthenticatedUser): Promise<SampleResponse> {
    return { data: await this.sampleWriter.register(body, user) };
  }

  @Public()
  @AnonymousReadLimit()
  @Get('by-igsn')
  @ApiExtraModels(SampleResponse, SampleLookupListResponse)
  @ApiOperation({
    summary: 'Look samples up by IGSN (any accepted form: DOI form with an accepted prefix, bare suffix, any case).',
    description:
      'One IGSN: 200 `{data: Sample}`, 401 (not public, no token), 403 (exists, not yours to see), 404, or 410 with ' +
      'a tombstone. Several, comma-separated (at most 100): always 200 `{data: [{igsn, status, data | message, ' +
      'tombstone}]}` in the order asked, each `status` what a lookup of that IGSN alone would answer.',
  })
  @ApiQuery({ name: 'igsn', required: true, description: 'One IGSN, or several comma-separated', type: String })
  @ApiOkResponse({
    schema: { oneOf: [{ $ref: getSchemaPath(SampleResponse) }, { $ref: getSchemaPath(SampleLookupListResponse) }] },
  })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'Invalid igsn: is required.', errors: { igsn: ['is required'] } },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse({ type: ErrorBody, example: { message: 'You may not see this sample.', errors: {} } })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiGoneResponse(GONE)
  async lookup(
    @Query() query: Record<string, string | string[] | undefined>,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<SampleResponse | SampleLookupListResponse> {
    refuseUnknownQueryParameters(query, ['igsn'], 'this lookup');
    const given = query.igsn;
    if (given !== undefined && typeof given !== 'string')
      throw ApiError.invalidField('igsn', 'give this parameter once');
    const values = (given ?? '')
      .split(',')
      .map((value) => value.trim())
      .filter(Boolean);
    if (!values.length) throw ApiError.invalidField('igsn', 'is required');
    if (values.length > MAX_LOOKUP_IGSNS) throw ApiError.invalidField('igsn', `at most ${MAX_LOOKUP_IGSNS} IGSNs`);
    const found = await this.reader.lookup(values, user);
    if (values.length > 1) return { data: found };
    const [one] = found;
    if (one.status === 200 && one.data) return { data: one.data };
    if (one.status === 410) throw ApiError.gone(one.message ?? '', { tombstone: one.tombstone });
    if (one.status === 401) throw ApiError.unauthorized(one.message);
    throw new ApiError(one.status, one.message ?? '');
  }

  @Public()
  @TokenCheckedInStatement()
  @Get([':igsn', ':prefix/:suffix'])
  @ApiOperation({
    summary: 'Fetch a sample by IGSN (DOI form or bare suffix, any letter case).',
    description:
      'Content negotiation: `Accept: application/json` (default; also `*/*` or no Accept), `application/ld+json` ' +
      '(schema.org JSON-LD), `application/vnd.datacite.datacite+xml` (DataCite Metadata Schema 4.6) or `text/csv` ' +
      '(header and one row). `?format=json|jsonld|datacite|csv` chooses the same and wins over Accept. ' +
      'Visibility is the same in every format.',
  })
  @ApiIgsnPath()
  @ApiSampleRepresentations()
  @ApiNotModifiedResponse()
  @ApiUnauthorizedResponse({
    type: ErrorBody,
    example: { message: 'This sample is not public; send a token with view permission.', errors: {} },
  })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiGoneResponse(GONE)
  async fetch(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @CurrentCaller() caller: RequestCaller,
  ): Promise<unknown> {
    // Set first so that error answers, which depend on Accept too, carry it as well.
    res.vary('Accept');
    let format: ReturnType<typeof negotiateSampleFormat>;
    try {
      format = negotiateSampleFormat(req.query.format, (types) => req.accepts(types));
    } catch (error) {
      // A revoked token is refused (401) before anything else is said, as on every other route.
      if (isUncheckedCaller(caller)) await caller.check();
      throw error;
    }
    const { sample, isPublic, user } = await this.reader.fetch(igsnOf(params), caller);
    const audience: CacheAudience = !isPublic ? 'none' : user ? 'private' : 'shared';
    const etag = strongEtag([
      format,
      sample.id,
      sample.updated_at,
      JSON.stringify(sample.doi),
      sample.can_edit,
      publicBaseUrl(this.config.publicUrl, req),
    ]);
    if (cacheRead(req, res, etag, audience, this.config.http.cacheMaxAgeSeconds)) return undefined;
    const rendered = renderSample(sample, format, {
      publisher: REGISTRY_PUBLISHER,
      baseUrl: publicBaseUrl(this.config.publicUrl, req),
    });
    res.setHeader('Content-Type', rendered.contentType);
    if (rendered.filename) res.setHeader('Content-Disposition', `attachment; filename="${rendered.filename}"`);
    return rendered.body;
  }

  @Patch([':igsn', ':prefix/:suffix'])
  @ApiBearerAuth('bearer')
  @ApiIgsnPath()
  @ApiOperation({ summary: 'Update a sample: send only the fields to change; lists sent replace the stored lists.' })
  @ApiOkResponse({ type: SampleResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiForbiddenResponse({ type: ErrorBody, example: { message: 'You may not edit this sample.', errors: {} } })
  @ApiNotFoundResponse(NOT_FOUND)
  async update(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @Body() body: UpdateSampleDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<SampleResponse> {
    return { data: await this.sampleWriter.update(igsnOf(params), body, user) };
  }

  /**
   * A sample is never replaced whole nor deleted (records are cited for decades: PATCH changes it,
   * deactivate retires it). Without these, PUT and DELETE would be a 404 that says the sample does
   * not exist; they are a 405 naming what the resource allows, before any token is looked at.
   */
  @Public()
  @Put([':igsn', ':prefix/:suffix'])
  @ApiExcludeEndpoint()
  replace(): never {
    throw methodNotAllowed('PUT');
  }

  @Public()
  @Delete([':igsn', ':prefix/:suffix'])
  @ApiExcludeEndpoint()
  remove(): never {
    throw methodNotAllowed('DELETE');
  }

  @Post([':igsn/deactivate', ':prefix/:suffix/deactivate'])
  @HttpCode(200)
  @ApiBearerAuth('bearer')
  @ApiIgsnPath()
  @ApiOperation({
    summary:
      'Deactivate a sample, at once: fetch and by-igsn answer 410 with a tombstone from then on; search never lists it.',
    description:
      "Body: `{reason, comment?}`, or SESAR2's `{deactivate_reason, other_reason?, duplicate_igsns?}`: " +
      '`other_reason` (at most 250 characters) is required with `other`, `duplicate_igsns` (at most 1000 IGSNs of ' +
      'samples you may see) with `duplicate igsn`. Needs edit permission (`can_deactivate`).',
  })
  @ApiOkResponse({ type: SampleResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Validation failed: reason.',
      errors: {
        reason: ['reason must be one of: this was a test sample; this sample does not exist; duplicate igsn; other'],
      },
    },
  })
  @ApiNotFoundResponse(NOT_FOUND)
  async deactivate(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @Body() body: SampleDeactivationDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<SampleResponse> {
    return { data: await this.deactivation.deactivate(igsnOf(params), body, user) };
  }
}
