import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
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
import { DEFAULT_LIMIT, LimitedSearchQueryDto } from '../vocabularies/dto/search-query.dto';
import {
  IndividualListResponse,
  IndividualPatchDto,
  IndividualResponse,
  IndividualWriteDto,
  toIndividualDto,
} from './dto/individual.dto';
import { IndividualsService } from './individuals.service';
import { parsePathId } from '../../core/http/row-id';
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

  @Patch(':id')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Correct an individual: the fields sent replace the stored ones. Only callers who may edit it (`can_edit`: ' +
      'its creator, staff, admins).',
  })
  @ApiParam({ name: 'id', type: 'integer', example: 31 })
  @ApiOkResponse({ type: IndividualResponse })
  @ApiBadRequestBody({
    message: 'Invalid country: unknown country "Narnia".',
    errors: { country: ['unknown country'] },
  })
  @ApiUnauthorizedBody()
  @ApiForbiddenBody('You may not edit this individual.')
  @ApiNotFoundBody('Individual 31 not found.')
  @ApiConflictBody({
    message: 'Individual 12 already has individual_uri https://orcid.org/0000-0002-1825-0097.',
    errors: { individual_uri: ['already the individual_uri of individual 12'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: IndividualPatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<IndividualResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = parsePathId(rawId, `Individual ${rawId} not found.`);
    return { data: toIndividualDto(await this.individuals.update(id, body, user), user) };
  }
}
