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
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';
import { ApiPageQuery, parsePageRequest } from '../../core/http/pagination';
import { CreateTransferDto, TransferDecisionDto, TransferListResponse, TransferResponse } from './dto/transfer.dto';
import { TransfersService } from './transfers.service';

const DIRECTIONS = ['all', 'incoming', 'outgoing'] as const;
const NOT_FOUND = { type: ErrorBody, example: { message: 'Transfer not found.', errors: {} } };
const NOT_PENDING = {
  type: ErrorBody,
  example: {
    message: 'This transfer is accepted; only a pending transfer can change.',
    errors: { status: ['is accepted'] },
  },
};

function transferId(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw ApiError.notFound('Transfer not found.');
  return Number(value);
}

@ApiTags('transfers')
@ApiBearerAuth('bearer')
@Controller('transfers')
export class TransfersController {
  constructor(private readonly transfersService: TransfersService) {}

  @Post()
  @ApiOperation({
    summary: 'Offer samples to another user or a team (staff: move them at once).',
    description:
      'Name the recipient (`to_user_email` or `to_team`, an id or a name) and the samples: `igsns` (up to 10,000 of ' +
      'your own), `registry_code` (all of yours under it) or `all_of_mine: true`. The set is fixed now; the ' +
      'transfer is `pending` until the recipient (or a manager of the team) accepts or rejects it, or you cancel ' +
      "it. Staff transfers are direct (also of someone else's samples, with `from_user_email`): moved at once.",
  })
  @ApiCreatedResponse({ type: TransferResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Validation failed: igsns.2.',
      errors: { 'igsns.2': ['is not a sample of the account transferring'] },
    },
  })
  @ApiForbiddenResponse({ type: ErrorBody })
  async create(@Body() body: CreateTransferDto, @CurrentUser() user: AuthenticatedUser): Promise<TransferResponse> {
    return { data: await this.transfersService.create(body, user) };
  }

  @Get()
  @ApiOperation({
    summary: 'Your transfers, sent and received (also to teams you manage), newest first, every status.',
  })
  @ApiQuery({ name: 'direction', required: false, enum: DIRECTIONS })
  @ApiPageQuery({ defaultSize: 25, maxSize: 200 })
  @ApiOkResponse({ type: TransferListResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Invalid direction: must be one of all, incoming, outgoing.',
      errors: { direction: ['must be one of all, incoming, outgoing'] },
    },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  async list(
    @Req() req: Request,
    @Query() query: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<TransferListResponse> {
    const unknown = Object.keys(query).filter((name) => !['direction', 'page', 'page_size'].includes(name));
    if (unknown.length) throw ApiError.invalidField(unknown[0], 'is not a parameter of this list');
    const direction = query.direction ?? 'all';
    if (typeof direction !== 'string' || !(DIRECTIONS as readonly string[]).includes(direction)) {
      throw ApiError.invalidField('direction', `must be one of ${DIRECTIONS.join(', ')}`);
    }
    const page = parsePageRequest(query, { defaultSize: 25, maxSize: 200 });
    return this.transfersService.list(req, user, direction as (typeof DIRECTIONS)[number], page);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One transfer (its parties and staff only).' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiNotFoundResponse(NOT_FOUND)
  async get(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<TransferResponse> {
    return { data: await this.transfersService.get(transferId(id), user) };
  }

  @Post(':id/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept a transfer: its samples become yours (or your team’s).',
    description:
      'Samples the sender no longer owns are skipped (`skipped_count`). More than TRANSFER_INLINE_MAX samples move ' +
      'in a background job: the answer is then `accepting` with `job_id` (GET /api/jobs/{id}/ for progress).',
  })
  @ApiOkResponse({ type: TransferResponse })
  @ApiForbiddenResponse({ type: ErrorBody })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(NOT_PENDING)
  async accept(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<TransferResponse> {
    return { data: await this.transfersService.accept(transferId(id), user) };
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a transfer (the recipient, or a manager of the receiving team).' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiForbiddenResponse({ type: ErrorBody })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(NOT_PENDING)
  async reject(
    @Param('id') id: string,
    @Body() body: TransferDecisionDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<TransferResponse> {
    return { data: await this.transfersService.reject(transferId(id), user, body?.message) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a pending transfer you sent.' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiForbiddenResponse({ type: ErrorBody })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiConflictResponse(NOT_PENDING)
  async cancel(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<TransferResponse> {
    return { data: await this.transfersService.cancel(transferId(id), user) };
  }
}
