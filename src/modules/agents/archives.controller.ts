import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';
import { ApiError } from '../../core/http/api-error';
import { LaunchPlatformInputDto, PlatformInputDto } from '../vocabularies/dto/platform-input.dto';
import { DEFAULT_LIMIT, LimitedSearchQueryDto } from '../vocabularies/dto/search-query.dto';
import {
  AgentRecord,
  ApiCreateAgent,
  ApiGetAgent,
  ApiListAgents,
  ApiUpdateAgent,
  agentPathId,
} from './agent-endpoints';
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

const ARCHIVE: AgentRecord = { noun: 'archive', exampleId: 4 };

const LABEL_TAKEN = {
  message: 'An archive labelled "OSU Marine and Geology Repository" already exists (id 4).',
  errors: { label: ['an archive with this label already exists'] },
};

@ApiTags('archives')
// Shapes other features' writes embed (sample and batch writes); listed so the document defines them.
@ApiExtraModels(ArchiveInputDto, CollectorInputDto, PlatformInputDto, LaunchPlatformInputDto)
@Controller('archives')
export class ArchivesController {
  constructor(private readonly archivesService: ArchivesService) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiListAgents(
    'Archives matching `search` (case- and accent-insensitive substring of label or alt_label; exact ' +
      'matches first, then prefixes), at most `limit` (default 20, at most 100).',
    ArchiveListResponse,
  )
  async list(
    @Query() query: LimitedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<ArchiveListResponse> {
    const archives = await this.archivesService.search(query.search, query.limit ?? DEFAULT_LIMIT);
    return { data: archives.map((archive) => toArchiveDto(archive, user)) };
  }

  @Post()
  @ApiCreateAgent(
    'Create an archive. Labels are unique (trimmed, case-insensitive); `country` is an ISO 3166-1 ' +
      'alpha-2 code or a country name; `parent_institution` an institution id.',
    ArchiveResponse,
    {
      badRequest: {
        message: 'Invalid parent_institution: no institution has id 999.',
        errors: { parent_institution: ['no institution has id 999'] },
      },
      conflict: LABEL_TAKEN,
    },
  )
  async create(
    @Body() body: ArchiveWriteDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<ArchiveResponse> {
    if (!user) throw ApiError.unauthorized();
    return { data: toArchiveDto(await this.archivesService.create(body, user.userId), user) };
  }

  @Public()
  @Get(':id')
  @ApiGetAgent(ARCHIVE, ArchiveResponse)
  async get(@Param('id') rawId: string, @CurrentUser() user: AuthenticatedUser | undefined): Promise<ArchiveResponse> {
    const id = agentPathId(ARCHIVE, rawId);
    return { data: toArchiveDto(await this.archivesService.get(id), user) };
  }

  @Patch(':id')
  @ApiUpdateAgent(ARCHIVE, ArchiveResponse, LABEL_TAKEN)
  async update(
    @Param('id') rawId: string,
    @Body() body: ArchivePatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<ArchiveResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = agentPathId(ARCHIVE, rawId);
    return { data: toArchiveDto(await this.archivesService.update(id, body, user), user) };
  }
}
