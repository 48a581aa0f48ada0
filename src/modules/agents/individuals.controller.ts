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
  IndividualListResponse,
  IndividualPatchDto,
  IndividualResponse,
  IndividualWriteDto,
  toIndividualDto,
} from './dto/individual.dto';
import { IndividualsService } from './individuals.service';

const INDIVIDUAL: AgentRecord = { noun: 'individual', exampleId: 31 };

@ApiTags('individuals')
@Controller('individuals')
export class IndividualsController {
  constructor(private readonly individualsService: IndividualsService) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiListAgents(
    'Individuals matching `search` (case- and accent-insensitive substring of label or alt_label; exact ' +
      'matches first, then prefixes), at most `limit` (default 20, at most 100). Contact details are shown ' +
      'only to callers who may edit the row.',
    IndividualListResponse,
  )
  async list(
    @Query() query: LimitedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualListResponse> {
    const individuals = await this.individualsService.search(query.search, query.limit ?? DEFAULT_LIMIT);
    return { data: individuals.map((individual) => toIndividualDto(individual, user)) };
  }

  @Public()
  @Get(':id')
  @ApiGetAgent(INDIVIDUAL, IndividualResponse)
  async get(
    @Param('id') rawId: string,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualResponse> {
    const id = agentPathId(INDIVIDUAL, rawId);
    return { data: toIndividualDto(await this.individualsService.get(id), user) };
  }

  @Post()
  @ApiCreateAgent(
    'Create an individual from a `label`, or `fname` and `lname` (label "fname lname"). `country` is an ' +
      'ISO 3166-1 alpha-2 code or a country name; read-only fields sent along are ignored.',
    IndividualResponse,
    {
      badRequest: {
        message: 'Invalid label: give a label, or fname and lname.',
        errors: { label: ['give a label, or fname and lname'] },
      },
    },
  )
  async create(
    @Body() body: IndividualWriteDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualResponse> {
    if (!user) throw ApiError.unauthorized();
    return { data: toIndividualDto(await this.individualsService.create(body, user.userId), user) };
  }

  @Patch(':id')
  @ApiUpdateAgent(INDIVIDUAL, IndividualResponse, {
    message: 'Individual 12 already has individual_uri https://orcid.org/0000-0002-1825-0097.',
    errors: { individual_uri: ['already the individual_uri of individual 12'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: IndividualPatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = agentPathId(INDIVIDUAL, rawId);
    return { data: toIndividualDto(await this.individualsService.update(id, body, user), user) };
  }
}
