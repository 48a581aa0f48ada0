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
  InstitutionListResponse,
  InstitutionPatchDto,
  InstitutionResponse,
  InstitutionWriteDto,
  toInstitutionDto,
} from './dto/institution.dto';
import { InstitutionsService } from './institutions.service';
import { parsePathId } from '../../core/http/row-id';
import { AnonymousReadLimit } from '../../core/http/anonymous-read-limit.guard';

@ApiTags('institutions')
@Controller('institutions')
export class InstitutionsController {
  constructor(private readonly institutions: InstitutionsService) {}

  @Public()
  @AnonymousReadLimit()
  @Get()
  @ApiOperation({
    summary:
      'Institutions matching `search` (case- and accent-insensitive substring of label or alt_label; exact ' +
      'matches first, then prefixes), at most `limit` (default 20, at most 100).',
  })
  @ApiOkResponse({ type: InstitutionListResponse })
  @ApiListErrors()
  async list(
    @Query() query: LimitedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionListResponse> {
    const institutions = await this.institutions.search(query.search, query.limit ?? DEFAULT_LIMIT);
    return { data: institutions.map((institution) => toInstitutionDto(institution, user)) };
  }

  @Public()
  @Get(':id')
  @ApiOperation({ summary: 'One institution.' })
  @ApiParam({ name: 'id', type: 'integer', example: 12 })
  @ApiOkResponse({ type: InstitutionResponse })
  @ApiNotFoundBody('Institution 12 not found.')
  async get(
    @Param('id') rawId: string,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionResponse> {
    const id = parsePathId(rawId, `Institution ${rawId} not found.`);
    return { data: toInstitutionDto(await this.institutions.get(id), user) };
  }

  @Post()
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Create an institution. `country` is an ISO 3166-1 alpha-2 code or a country name; read-only fields ' +
      'sent along are ignored.',
  })
  @ApiCreatedResponse({ type: InstitutionResponse })
  @ApiBadRequestBody({
    message: 'Validation failed: label.',
    errors: { label: ['label must be shorter than or equal to 200 characters'] },
  })
  @ApiUnauthorizedBody()
  async create(
    @Body() body: InstitutionWriteDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionResponse> {
    if (!user) throw ApiError.unauthorized();
    return { data: toInstitutionDto(await this.institutions.create(body, user.userId), user) };
  }

  @Patch(':id')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Correct an institution: the fields sent replace the stored ones. Only callers who may edit it (`can_edit`: ' +
      'its creator, staff, admins).',
  })
  @ApiParam({ name: 'id', type: 'integer', example: 12 })
  @ApiOkResponse({ type: InstitutionResponse })
  @ApiBadRequestBody({
    message: 'Invalid country: unknown country "Narnia".',
    errors: { country: ['unknown country'] },
  })
  @ApiUnauthorizedBody()
  @ApiForbiddenBody('You may not edit this institution.')
  @ApiNotFoundBody('Institution 12 not found.')
  @ApiConflictBody({
    message: 'Institution 12 already has ror 00hj8s172.',
    errors: { ror: ['already the ror of institution 12'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: InstitutionPatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<InstitutionResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = parsePathId(rawId, `Institution ${rawId} not found.`);
    return { data: toInstitutionDto(await this.institutions.update(id, body, user), user) };
  }
}
