import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import {
  ApiBadRequestBody,
  ApiForbiddenBody,
  ApiNotFoundBody,
  ApiUnauthorizedBody,
} from '../../core/http/api-error-responses';
import { ApiPageQuery, paginate, parsePageRequest } from '../../core/http/pagination';
import { parsePathId } from '../../core/http/row-id';
import { textLength } from '../../core/http/text-length';
import { RELATED_RESOURCE_ORDERINGS } from '../samples';
import {
  LinkSamplesDto,
  LinkedSamplesResponse,
  RelatedResourceListResponse,
  RelatedResourcePatchDto,
  RelatedResourceResponse,
  RelatedResourceWriteDto,
} from './dto/related-resource.dto';
import { RelatedResourcesService } from './related-resources.service';

const NOT_FOUND = 'Related resource not found.';
const PAGE = { defaultSize: 25, maxSize: 500 };
const LIST_PARAMETERS = new Set(['search', 'ordering', 'page', 'page_size']);

@ApiTags('related-resources')
@ApiBearerAuth('bearer')
@ApiUnauthorizedBody()
@Controller('related-resources')
export class RelatedResourcesController {
  constructor(private readonly relatedResourcesService: RelatedResourcesService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a related resource (a publication, data set, image…) to link to samples.',
    description:
      'Any signed-in user may create one; its creator (and staff) may read, edit and link it. Link it with ' +
      "POST …/link-samples/ or by its id in a sample's `related_resources`. DataCite records of the samples " +
      'carry it as a relatedIdentifier (IsReferencedBy; DOI for uri_type DOI, URL otherwise, none for a local file).',
  })
  @ApiCreatedResponse({ type: RelatedResourceResponse })
  @ApiBadRequestBody({
    message: 'Validation failed: uri_type.',
    errors: { uri_type: ['must be one of: DOI, URL, local file, Other'] },
  })
  async create(
    @Body() body: RelatedResourceWriteDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<RelatedResourceResponse> {
    return { data: await this.relatedResourcesService.create(body, user) };
  }

  @Get()
  @ApiOperation({
    summary: 'The related resources you created (staff: all), paginated.',
    description:
      '`search`: substring of label, uri or description (any case). `ordering`: a field, `-` for descending.',
  })
  @ApiQuery({ name: 'search', required: false, schema: { type: 'string', maxLength: 255 } })
  @ApiQuery({
    name: 'ordering',
    required: false,
    schema: {
      type: 'string',
      enum: Object.keys(RELATED_RESOURCE_ORDERINGS).flatMap((key) => [key, `-${key}`]),
      default: '-created_at',
    },
  })
  @ApiPageQuery(PAGE)
  @ApiOkResponse({ type: RelatedResourceListResponse })
  @ApiBadRequestBody({
    message: 'Invalid ordering: must be one of id, label, created_at, updated_at, related_resource_type, uri_type.',
    errors: { ordering: ['must be one of id, label, created_at, updated_at, related_resource_type, uri_type'] },
  })
  async list(
    @Query() query: Record<string, string | undefined>,
    @CurrentUser() user: AuthenticatedUser,
    @Req() req: Request,
  ): Promise<RelatedResourceListResponse> {
    const unknown = Object.keys(query).filter((name) => !LIST_PARAMETERS.has(name));
    if (unknown.length) {
      throw ApiError.badRequest(
        `Unknown query parameter(s): ${unknown.join(', ')}.`,
        Object.fromEntries(unknown.map((name) => [name, ['is not a parameter of this list']])),
      );
    }
    for (const name of ['search', 'ordering'] as const) {
      if (query[name] !== undefined && typeof query[name] !== 'string') {
        throw ApiError.invalidField(name, 'must be given once');
      }
    }
    if (textLength(query.search ?? '') > 255) throw ApiError.invalidField('search', 'must be at most 255 characters');
    const page = parsePageRequest(query, PAGE);
    const { count, data } = await this.relatedResourcesService.list(query, page, user);
    return paginate(req, page, count, data);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One related resource (its creator, staff and admins; 404 to others).' })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiOkResponse({ type: RelatedResourceResponse })
  @ApiNotFoundBody(NOT_FOUND)
  async fetch(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<RelatedResourceResponse> {
    return { data: await this.relatedResourcesService.fetch(parsePathId(id, NOT_FOUND), user) };
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change a related resource (its creator, staff, admins); linked samples' DOIs follow." })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiOkResponse({ type: RelatedResourceResponse })
  @ApiBadRequestBody({ message: 'Invalid label: cannot be cleared.', errors: { label: ['cannot be cleared'] } })
  @ApiNotFoundBody(NOT_FOUND)
  async update(
    @Param('id') id: string,
    @Body() body: RelatedResourcePatchDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<RelatedResourceResponse> {
    return { data: await this.relatedResourcesService.update(parsePathId(id, NOT_FOUND), body, user) };
  }

  @Post(':id/link-samples')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Link the resource to samples (by sample id or IGSN); all or nothing.',
    description:
      'Needs edit permission on every sample (owner, team editor/manager, staff): 404 for a sample you may not ' +
      "see, 403 for one you may see but not edit. Links that exist stay; the samples' DataCite records follow.",
  })
  @ApiParam({ name: 'id', type: 'integer' })
  @ApiOkResponse({ type: LinkedSamplesResponse })
  @ApiBadRequestBody({
    message: 'Validation failed: sample_ids.0.',
    errors: { 'sample_ids.0': ['must be a sample id or an IGSN'] },
  })
  @ApiForbiddenBody('You may not edit every sample named.')
  @ApiNotFoundBody(NOT_FOUND)
  async linkSamples(
    @Param('id') id: string,
    @Body() body: LinkSamplesDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<LinkedSamplesResponse> {
    return { data: await this.relatedResourcesService.linkSamples(parsePathId(id, NOT_FOUND), body.sample_ids, user) };
  }
}
