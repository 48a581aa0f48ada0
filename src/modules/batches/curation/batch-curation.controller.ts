import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../../core/auth/authenticated-user';
import { ErrorBody } from '../../../core/http/error-body';
import { ApiPageQuery, parsePageRequest } from '../../../core/http/pagination';
import { DeactivateSampleDto } from '../../samples';
import { DEACTIVATE_REASONS } from '../../samples';
import { BatchCurationReader } from './batch-curation.reader';
import { BatchCurationService } from './batch-curation.service';
import { BatchFeedbackInputDto } from './dto/batch-feedback.dto';
import {
  BatchDeactivationResponse,
  BatchTransitionResponse,
  CurationDetailResponse,
  CurationEventListResponse,
  FeedbackRecordedResponse,
} from './dto/curation.dto';

const NOT_FOUND = { type: ErrorBody, example: { message: 'Batch not found.', errors: {} } };
const BATCH_ID = { name: 'id', description: 'The batch id (BatchHistory.id), e.g. 42', type: String };

@ApiTags('batch curation')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({
  type: ErrorBody,
  example: { message: 'Authentication credentials were not provided.', errors: {} },
})
@ApiNotFoundResponse(NOT_FOUND)
@Controller('batches')
export class BatchCurationController {
  constructor(
    private readonly reader: BatchCurationReader,
    private readonly batchCurationService: BatchCurationService,
  ) {}

  @Get(':id/curation')
  @ApiParam(BATCH_ID)
  @ApiOperation({
    summary:
      'The curation view of a batch: fields shared by every sample (with the template’s labels), the fields that ' +
      'differ as columns, and one page of samples over those columns (always with igsn and name).',
  })
  @ApiPageQuery({ defaultSize: 100, maxSize: 1000 })
  @ApiOkResponse({ type: CurationDetailResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Invalid page_size: must be an integer between 1 and 1000.',
      errors: { page_size: ['must be an integer between 1 and 1000'] },
    },
  })
  async detail(
    @Req() req: Request,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<CurationDetailResponse> {
    const page = parsePageRequest(query, { defaultSize: 100, maxSize: 1000 });
    return { data: await this.reader.detail(req, id, user, page) };
  }

  @Get(':id/events')
  @ApiParam(BATCH_ID)
  @ApiOperation({
    summary:
      'The audit trail of a batch, newest first: who submitted, accepted, deactivated or gave feedback, when, ' +
      'from which state to which, and how many samples changed.',
  })
  @ApiPageQuery({ defaultSize: 25, maxSize: 500 })
  @ApiOkResponse({ type: CurationEventListResponse })
  events(
    @Req() req: Request,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<CurationEventListResponse> {
    return this.reader.events(req, id, user, parsePageRequest(query, { defaultSize: 25, maxSize: 500 }));
  }

  @Post(':id/submit-for-review')
  @HttpCode(200)
  @ApiParam(BATCH_ID)
  @ApiOperation({
    summary:
      'Submit the batch’s drafts for review (draft → pending-review). Needs edit permission (owner, team editor or ' +
      'manager, staff). A draft without latitude/longitude blocks the whole submit. Repeating it changes nothing.',
  })
  @ApiOkResponse({ type: BatchTransitionResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message:
        '1 draft sample(s) have no coordinates; latitude and longitude are required for review. Nothing was submitted.',
      errors: { '10.5072/IEABC0003': ['latitude is required for review', 'longitude is required for review'] },
    },
  })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: {
      message: 'You may not submit this batch: that needs edit permission on its samples.',
      errors: {},
    },
  })
  async submitForReview(
    @Param('id') id: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchTransitionResponse> {
    return { data: await this.batchCurationService.submitForReview(id, user) };
  }

  @Post(':id/accept')
  @HttpCode(200)
  @ApiParam(BATCH_ID)
  @ApiOperation({
    summary:
      'Curators (staff) only: publish the batch’s pending-review samples (publish_date now unless set). ' +
      'Accepting again changes nothing and reports 0.',
  })
  @ApiOkResponse({ type: BatchTransitionResponse })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'Only curators (staff) may accept a batch.', errors: {} },
  })
  async accept(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<BatchTransitionResponse> {
    return { data: await this.batchCurationService.accept(id, user) };
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @ApiParam(BATCH_ID)
  @ApiOperation({
    summary:
      'Deactivate every sample of the batch (owner, team editor or manager, staff); they are never returned by ' +
      `fetch or search again. reason: one of ${DEACTIVATE_REASONS.map((reason) => `"${reason}"`).join(', ')}.`,
  })
  @ApiOkResponse({ type: BatchDeactivationResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Validation failed: reason.',
      errors: {
        reason: ['reason must be one of: this was a test sample; this sample does not exist; duplicate igsn; other'],
      },
    },
  })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'You may not deactivate this batch: that needs edit permission on its samples.', errors: {} },
  })
  async deactivate(
    @Param('id') id: string,
    @Body() body: DeactivateSampleDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<BatchDeactivationResponse> {
    return { data: await this.batchCurationService.deactivate(id, body, user) };
  }

  @Post(':id/feedback')
  @HttpCode(200)
  @ApiParam(BATCH_ID)
  @ApiOperation({
    summary:
      'Curators (staff) only: leave feedback on the batch. It is stored, shown in the curation view, recorded in the ' +
      'audit trail and notified to the batch owner (as their notification_preferences.batch_feedback says).',
  })
  @ApiOkResponse({ type: FeedbackRecordedResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Validation failed: sample_feedback.0.igsn.',
      errors: { 'sample_feedback.0.igsn': ['10.5072/IEXYZ0001 is not a sample of batch 42'] },
    },
  })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'Only curators (staff) may give feedback on a batch.', errors: {} },
  })
  async feedback(
    @Param('id') id: string,
    @Body() body: BatchFeedbackInputDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<FeedbackRecordedResponse> {
    return { data: await this.batchCurationService.feedback(id, body, user) };
  }
}
