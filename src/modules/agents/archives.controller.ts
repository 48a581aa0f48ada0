import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import {
  ApiBadRequestBody,
  ApiConflictBody,
  ApiListErrors,
  ApiUnauthorizedBody,
} from '../../core/http/api-error-responses';
import { LaunchPlatformInputDto, PlatformInputDto } from '../vocabularies/dto/platform-input.dto';
import { DEFAULT_LIMIT, LimitedSearchQueryDto } from '../vocabularies/dto/search-query.dto';
import { ArchivesService } from './archives.service';
import {
  ArchiveInputDto,
  ArchiveListResponse,
  ArchiveResponse,
  ArchiveWriteDto,
  toArchiveDto,
} from './dto/archive.dto';
import { CollectorInputDto } from './dto/collector-input.dto';
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
}
