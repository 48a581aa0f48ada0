import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';
import { ApiError } from '../../core/http/api-error';
import { DEFAULT_LIMIT, LimitedSearchQueryDto } from '../vocabularies/dto/search-query.dto';
import {
  AgentRecord,
  ApiCreateAgent,
  ApiGetAgent,
  ApiListAgents,
  ApiUpdateAgent,
  agentPathId,
} from './agent-endpoints';
import {
  InstitutionListResponse,
  InstitutionPatchDto,
  InstitutionResponse,
  InstitutionWriteDto,
  toInstitutionDto,
} from './dto/institution.dto';
import { InstitutionsService } from './institutions.service';

const INSTITUTION: AgentRecord = { noun: 'institution', exampleId: 12 };

@ApiTags('institutions')
@Controller('institutions')
export class InstitutionsController {
  constructor(private readonly institutionsService: InstitutionsService) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiListAgents(
    'Institutions matching `search` (case- and accent-insensitive substring of label or alt_label; exact ' +
      'matches first, then prefixes), at most `limit` (default 20, at most 100).',
    InstitutionListResponse,
  )
  async list(
    @Query() query: LimitedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionListResponse> {
    const institutions = await this.institutionsService.search(query.search, query.limit ?? DEFAULT_LIMIT);
    return { data: institutions.map((institution) => toInstitutionDto(institution, user)) };
  }

  @Public()
  @Get(':id')
  @ApiGetAgent(INSTITUTION, InstitutionResponse)
  async get(
    @Param('id') rawId: string,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionResponse> {
    const id = agentPathId(INSTITUTION, rawId);
    return { data: toInstitutionDto(await this.institutionsService.get(id), user) };
  }

  @Post()
  @ApiCreateAgent(
    'Create an institution. `country` is an ISO 3166-1 alpha-2 code or a country name; read-only fields ' +
      'sent along are ignored.',
    InstitutionResponse,
    {
      badRequest: {
        message: 'Validation failed: label.',
        errors: { label: ['label must be shorter than or equal to 200 characters'] },
      },
    },
  )
  async create(
    @Body() body: InstitutionWriteDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionResponse> {
    if (!user) throw ApiError.unauthorized();
    return { data: toInstitutionDto(await this.institutionsService.create(body, user.userId), user) };
  }

  @Patch(':id')
  @ApiUpdateAgent(INSTITUTION, InstitutionResponse, {
    message: 'Institution 12 already has ror 00hj8s172.',
    errors: { ror: ['already the ror of institution 12'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: InstitutionPatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = agentPathId(INSTITUTION, rawId);
    return { data: toInstitutionDto(await this.institutionsService.update(id, body, user), user) };
  }
}
