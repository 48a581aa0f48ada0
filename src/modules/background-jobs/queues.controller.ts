import { Controller, Get } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';
import { QueueStats } from '../../core/queue/queue-stats';
import { QueueCountsResponse } from './dto/queue-counts.dto';

/** The staff view of the background queues: how many jobs wait, run, retry or failed. */
@ApiTags('jobs')
@ApiBearerAuth('bearer')
@Controller('queues')
export class QueuesController {
  constructor(private readonly stats: QueueStats) {}

  @Get()
  @ApiOperation({ summary: 'Jobs in each background queue by state (staff only).' })
  @ApiOkResponse({ type: QueueCountsResponse })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse({ type: ErrorBody })
  async counts(@CurrentUser() user: AuthenticatedUser): Promise<QueueCountsResponse> {
    if (!user.isStaff && !user.isAdmin) throw ApiError.forbidden('Only staff can see the queues.');
    return { data: await this.stats.counts() };
  }
}
