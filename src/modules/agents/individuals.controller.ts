import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import {
  ApiBadRequestBody,
  ApiListErrors,
  ApiNotFoundBody,
  ApiUnauthorizedBody,
} from '../../core/http/api-error-responses';
import { DEFAULT_LIMIT, LimitedSearchQueryDto } from '../vocabularies/dto/search-query.dto';
import { IndividualListResponse, IndividualResponse, IndividualWriteDto, toIndividualDto } from './dto/individual.dto';
import { IndividualsService } from './individuals.service';
import { parsePathId } from './path-id';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';

@ApiTags('individuals')
@Controller('individuals')
export class IndividualsController {
  constructor(private readonly individuals: IndividualsService) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiOperation({
    summary:
      'Individuals matching `search` (case- and accent-insensitive substring of label or alt_label; exact ' +
      'matches first, then prefixes), at most `limit` (default 20, at most 100). Contact details are shown ' +
      'only to callers who may edit the row.',
  })
  @ApiOkResponse({ type: IndividualListResponse })
  @ApiListErrors()
  async list(
    @Query() query: LimitedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualListResponse> {
    const individuals = await this.individuals.search(query.search, query.limit ?? DEFAULT_LIMIT);
    return { data: individuals.map((individual) => toIndividualDto(individual, user)) };
  }

  @Public()
  @Get(':id')
  @ApiOperation({ summary: 'One individual.' })
  @ApiParam({ name: 'id', type: 'integer', example: 31 })
  @ApiOkResponse({ type: IndividualResponse })
  @ApiNotFoundBody('Individual 31 not found.')
  async get(
    @Param('id') rawId: string,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualResponse> {
    const id = parsePathId(rawId, `Individual ${rawId} not found.`);
    return { data: toIndividualDto(await this.individuals.get(id), user) };
  }

  @Post()
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Create an individual from a `label`, or `fname` and `lname` (label "fname lname"). `country` is an ' +
      'ISO 3166-1 alpha-2 code or a country name; read-only fields sent along are ignored.',
  })
  @ApiCreatedResponse({ type: IndividualResponse })
  @ApiBadRequestBody({
    message: 'Invalid label: give a label, or fname and lname.',
    errors: { label: ['give a label, or fname and lname'] },
  })
  @ApiUnauthorizedBody()
  async create(
    @Body() body: IndividualWriteDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualResponse> {
    if (!user) throw ApiError.unauthorized();
    return { data: toIndividualDto(await this.individuals.create(body, user.userId), user) };
  }
}
