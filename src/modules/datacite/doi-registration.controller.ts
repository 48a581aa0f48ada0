import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ErrorBody } from '../../core/http/error-body';
import { ApiIgsnPath } from '../samples';
import { DoiSummaryResponse, DoiSyncResponse } from './dto/doi-registration.dto';
import { DoiRegistrationService } from './doi-registration.service';

const STAFF_ONLY = { type: ErrorBody, example: { message: 'Only staff may re-send samples to DataCite.', errors: {} } };

@ApiTags('datacite')
@ApiBearerAuth('bearer')
@Controller()
export class DoiRegistrationController {
  constructor(private readonly doiRegistrationService: DoiRegistrationService) {}

  @Post(['samples/:igsn/doi/sync', 'samples/:prefix/:suffix/doi/sync'])
  @HttpCode(202)
  @ApiOperation({
    summary: "Re-send a sample's DOI metadata to DataCite (staff).",
    description:
      'Marks the sample due for delivery and wakes a worker: published samples are made findable, ' +
      'deactivated ones hidden. Answers at once with the pending state; follow `doi` on the sample.',
  })
  @ApiIgsnPath()
  @ApiAcceptedResponse({ type: DoiSyncResponse })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse(STAFF_ONLY)
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Sample not found.', errors: {} } })
  @ApiConflictResponse({
    type: ErrorBody,
    example: {
      message: 'DataCite registration is not configured (DATACITE_API_URL, DATACITE_REPOSITORY_ID, DATACITE_PASSWORD).',
      errors: {},
    },
  })
  async sync(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DoiSyncResponse> {
    const igsn = params.prefix !== undefined ? `${params.prefix}/${params.suffix ?? ''}` : (params.igsn ?? '');
    this.doiRegistrationService.requireStaff(user);
    return { data: await this.doiRegistrationService.resendSample(igsn) };
  }

  @Get('datacite/status')
  @ApiOperation({ summary: 'DOI registration progress: samples pending, findable, hidden, failed (staff).' })
  @ApiOkResponse({ type: DoiSummaryResponse })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse(STAFF_ONLY)
  async status(@CurrentUser() user: AuthenticatedUser): Promise<DoiSummaryResponse> {
    this.doiRegistrationService.requireStaff(user);
    return { data: await this.doiRegistrationService.summary() };
  }
}
