import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';
import { ApiPageQuery, Paginated, paginate, parsePageRequest } from '../../core/http/pagination';
import { ACCOUNT_REQUEST_STATUSES, AccountRequestKind, AccountRequestStatus } from './account-request.entity';
import { AccountRequestsService, NOT_FOUND } from './account-requests.service';
import {
  AccessRequestInput,
  AccountRequestDto,
  AccountRequestListResponse,
  AccountRequestResponse,
  ApproveRequestInput,
  RefuseRequestInput,
  RegistryCodeRequestInput,
} from './dto/account-request.dto';

const PAGE = { defaultSize: 25, maxSize: 200 };
const LIST_PARAMETERS = new Set(['status', 'page', 'page_size']);
const CURATORS_ONLY = {
  type: ErrorBody,
  example: { message: 'Only curators (staff) decide requests.', errors: {} },
};
const ALREADY_DECIDED = { type: ErrorBody, example: { message: 'This request was already approved.', errors: {} } };
const ID = { name: 'id', description: 'The request id' };

/** `?status=pending|approved|refused` (absent: all); any other parameter is a 400 naming it. */
function listStatus(query: Record<string, unknown>): AccountRequestStatus | undefined {
  const unknown = Object.keys(query).filter((name) => !LIST_PARAMETERS.has(name));
  if (unknown.length) {
    throw ApiError.badRequest(
      `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
      Object.fromEntries(unknown.map((name) => [name, ['is not a parameter of this list']])),
    );
  }
  const status = query.status;
  if (status === undefined || status === '') return undefined;
  if (typeof status !== 'string' || !(ACCOUNT_REQUEST_STATUSES as readonly string[]).includes(status)) {
    throw ApiError.invalidField('status', `must be one of ${ACCOUNT_REQUEST_STATUSES.join(', ')}`);
  }
  return status as AccountRequestStatus;
}

/**
 * Requests a curator decides, as JSON: upload permission ("API access"; SESAR2 clients post to
 * `/api/api-access-request/`) and registry codes. The account pages offer the same actions.
 */
@ApiTags('account requests')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({
  type: ErrorBody,
  example: { message: 'Authentication credentials were not provided.', errors: {} },
})
@Controller()
export class AccountRequestsController {
  constructor(private readonly accountRequestsService: AccountRequestsService) {}

  private async list(
    req: Request,
    caller: AuthenticatedUser,
    kind: AccountRequestKind,
    query: Record<string, unknown>,
  ): Promise<Paginated<AccountRequestDto>> {
    const status = listStatus(query);
    const page = parsePageRequest(query, PAGE);
    const { count, data } = await this.accountRequestsService.list(caller, { kind, status }, page);
    return paginate(req, page, count, data);
  }

  @Post(['api-access-request', 'access-requests'])
  @ApiOperation({
    summary:
      'Ask a curator for upload permission ("API access"), with a reason. `/api/api-access-request/` is the path SESAR2 clients use.',
  })
  @ApiCreatedResponse({ type: AccountRequestResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'Validation failed: reason.', errors: { reason: ['reason should not be empty'] } },
  })
  @ApiConflictResponse({ type: ErrorBody, example: { message: 'You already have upload permission.', errors: {} } })
  async requestAccess(
    @CurrentUser() caller: AuthenticatedUser,
    @Body() body: AccessRequestInput,
  ): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.requestUploadPermission(caller, body.reason) };
  }

  @Get('access-requests')
  @ApiOperation({
    summary: 'Requests for upload permission, oldest first: every request for staff, your own for anyone else.',
  })
  @ApiQuery({ name: 'status', required: false, enum: ACCOUNT_REQUEST_STATUSES })
  @ApiPageQuery(PAGE)
  @ApiOkResponse({ type: AccountRequestListResponse })
  listAccess(
    @Req() req: Request,
    @CurrentUser() caller: AuthenticatedUser,
    @Query() query: Record<string, unknown>,
  ): Promise<Paginated<AccountRequestDto>> {
    return this.list(req, caller, 'upload_permission', query);
  }

  @Get('access-requests/:id')
  @ApiParam(ID)
  @ApiOperation({ summary: 'One request for upload permission (yours, or any for staff).' })
  @ApiOkResponse({ type: AccountRequestResponse })
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: NOT_FOUND.upload_permission, errors: {} } })
  async getAccess(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.get(caller, 'upload_permission', id) };
  }

  @Post('access-requests/:id/approve')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({
    summary: 'Staff: grant the requester upload permission, with an optional message; the requester is notified.',
  })
  @ApiOkResponse({ type: AccountRequestResponse })
  @ApiForbiddenResponse(CURATORS_ONLY)
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: NOT_FOUND.upload_permission, errors: {} } })
  @ApiConflictResponse(ALREADY_DECIDED)
  async approveAccess(
    @CurrentUser() caller: AuthenticatedUser,
    @Param('id') id: string,
    @Body() body: ApproveRequestInput,
  ): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.approve(caller, 'upload_permission', id, body.message) };
  }

  @Post('access-requests/:id/refuse')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({ summary: 'Staff: refuse a request for upload permission, saying why; the requester is notified.' })
  @ApiOkResponse({ type: AccountRequestResponse })
  @ApiForbiddenResponse(CURATORS_ONLY)
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: NOT_FOUND.upload_permission, errors: {} } })
  @ApiConflictResponse(ALREADY_DECIDED)
  async refuseAccess(
    @CurrentUser() caller: AuthenticatedUser,
    @Param('id') id: string,
    @Body() body: RefuseRequestInput,
  ): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.refuse(caller, 'upload_permission', id, body.message) };
  }

  @Post('registry-code-requests')
  @ApiOperation({
    summary: 'Ask a curator for a registry code, for yourself or for a team you manage, with a reason.',
  })
  @ApiCreatedResponse({ type: AccountRequestResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Invalid code: must be IE followed by 3 letters or digits, or a legacy 3-character code.',
      errors: { code: ['must be IE followed by 3 letters or digits, or a legacy 3-character code'] },
    },
  })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: {
      message: 'You can ask for a registry code only for a team you manage.',
      errors: { team: ['not a team you manage'] },
    },
  })
  @ApiConflictResponse({
    type: ErrorBody,
    example: { message: 'Registry code IEWHC already exists.', errors: { code: ['already exists'] } },
  })
  async requestCode(
    @CurrentUser() caller: AuthenticatedUser,
    @Body() body: RegistryCodeRequestInput,
  ): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.requestRegistryCode(caller, body) };
  }

  @Get('registry-code-requests')
  @ApiOperation({
    summary: 'Requests for registry codes, oldest first: every request for staff, your own for anyone else.',
  })
  @ApiQuery({ name: 'status', required: false, enum: ACCOUNT_REQUEST_STATUSES })
  @ApiPageQuery(PAGE)
  @ApiOkResponse({ type: AccountRequestListResponse })
  listCodes(
    @Req() req: Request,
    @CurrentUser() caller: AuthenticatedUser,
    @Query() query: Record<string, unknown>,
  ): Promise<Paginated<AccountRequestDto>> {
    return this.list(req, caller, 'registry_code', query);
  }

  @Get('registry-code-requests/:id')
  @ApiParam(ID)
  @ApiOperation({ summary: 'One request for a registry code (yours, or any for staff).' })
  @ApiOkResponse({ type: AccountRequestResponse })
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: NOT_FOUND.registry_code, errors: {} } })
  async getCode(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.get(caller, 'registry_code', id) };
  }

  @Post('registry-code-requests/:id/approve')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({
    summary:
      'Staff: create the code for the requester or their team, exactly as `registry-code:create` does (same rules and conflicts); the requester is notified.',
  })
  @ApiOkResponse({ type: AccountRequestResponse })
  @ApiForbiddenResponse(CURATORS_ONLY)
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: NOT_FOUND.registry_code, errors: {} } })
  @ApiConflictResponse({
    type: ErrorBody,
    description: 'Already decided, or the code cannot be created (it exists, or its namespace is taken).',
    example: { message: 'Registry code IEWHC already exists.', errors: { code: ['already exists'] } },
  })
  async approveCode(
    @CurrentUser() caller: AuthenticatedUser,
    @Param('id') id: string,
    @Body() body: ApproveRequestInput,
  ): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.approve(caller, 'registry_code', id, body.message) };
  }

  @Post('registry-code-requests/:id/refuse')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiOperation({ summary: 'Staff: refuse a request for a registry code, saying why; the requester is notified.' })
  @ApiOkResponse({ type: AccountRequestResponse })
  @ApiForbiddenResponse(CURATORS_ONLY)
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: NOT_FOUND.registry_code, errors: {} } })
  @ApiConflictResponse(ALREADY_DECIDED)
  async refuseCode(
    @CurrentUser() caller: AuthenticatedUser,
    @Param('id') id: string,
    @Body() body: RefuseRequestInput,
  ): Promise<AccountRequestResponse> {
    return { data: await this.accountRequestsService.refuse(caller, 'registry_code', id, body.message) };
  }
}
