import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import {
  ApiBadRequestBody,
  ApiConflictBody,
  ApiForbiddenBody,
  ApiListErrors,
  ApiNotFoundBody,
  ApiUnauthorizedBody,
} from '../../core/http/api-error-responses';
import { LaunchPlatformInputDto, PlatformInputDto } from '../vocabularies/dto/platform-input.dto';
import { DEFAULT_LIMIT, LimitedSearchQueryDto } from '../vocabularies/dto/search-query.dto';
import { ArchivesService } from './archives.service';
import {
  ArchiveInputDto,
  ArchiveListResponse,
  ArchivePatchDto,
  ArchiveResponse,
  ArchiveWriteDto,
  toArchiveDto,
} from './dto/archive.dto';
import { CollectorInputDto } from './dto/collector-input.dto';
import { parsePathId } from '../../core/http/row-id';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';

@ApiTags('archives')
// Shapes other features' writes embed (sample and batch writes); listed so the document defines them.
@ApiExtraModels(ArchiveInputDto, CollectorInputDto, PlatformInputDto, LaunchPlatformInputDto)
@Controller('archives')
export class ArchivesController {
  constructor(private readonly archives: ArchivesService) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiOperation({
    summary:
      'Archives matching `search` (case- and accent-insensitive substring of label or alt_label; exact ' +
      'matches first, then prefixes), at most `limit` (default 20, at most 100).',
  })
  @ApiOkResponse({ type: ArchiveListResponse })
  @ApiListErrors()
  async list(
    @Query() query: LimitedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<ArchiveListResponse> {
    const archives = await this.archives.search(query.search, query.limit ?? DEFAULT_LIMIT);
    return { data: archives.map((archive) => toArchiveDto(archive, user)) };
  }

  @Post()
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Create an archive. Labels are unique (trimmed, case-insensitive); `country` is an ISO 3166-1 ' +
      'alpha-2 code or a country name; `parent_institution` an institution id.',
  })
  @ApiCreatedResponse({ type: ArchiveResponse })
  @ApiBadRequestBody({
    message: 'Invalid parent_institution: no institution has id 999.',
    errors: { parent_institution: ['no institution has id 999'] },
  })
  @ApiUnauthorizedBody()
  @ApiConflictBody({
    message: 'An archive labelled "OSU Marine and Geology Repository" already exists (id 4).',
    errors: { label: ['an archive with this label already exists'] },
  })
  async create(
    @Body() body: ArchiveWriteDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<ArchiveResponse> {
    if (!user) throw ApiError.unauthorized();
    return { data: toArchiveDto(await this.archives.create(body, user.userId), user) };
  }

  @Public()
  @Get(':id')
  @ApiOperation({ summary: 'One archive.' })
  @ApiParam({ name: 'id', type: 'integer', example: 4 })
  @ApiOkResponse({ type: ArchiveResponse })
  @ApiNotFoundBody('Archive 4 not found.')
  async get(@Param('id') rawId: string, @CurrentUser() user: AuthenticatedUser | undefined): Promise<ArchiveResponse> {
    const id = parsePathId(rawId, `Archive ${rawId} not found.`);
    return { data: toArchiveDto(await this.archives.get(id), user) };
  }

  @Patch(':id')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Correct an archive: the fields sent replace the stored ones. Only callers who may edit it (`can_edit`: ' +
      'its creator, staff, admins).',
  })
  @ApiParam({ name: 'id', type: 'integer', example: 4 })
  @ApiOkResponse({ type: ArchiveResponse })
  @ApiBadRequestBody({
    message: 'Invalid country: unknown country "Narnia".',
    errors: { country: ['unknown country'] },
  })
  @ApiUnauthorizedBody()
  @ApiForbiddenBody('You may not edit this archive.')
  @ApiNotFoundBody('Archive 4 not found.')
  @ApiConflictBody({
    message: 'An archive labelled "OSU Marine and Geology Repository" already exists (id 4).',
    errors: { label: ['an archive with this label already exists'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: ArchivePatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<ArchiveResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = parsePathId(rawId, `Archive ${rawId} not found.`);
    return { data: toArchiveDto(await this.archives.update(id, body, user), user) };
  }
}
