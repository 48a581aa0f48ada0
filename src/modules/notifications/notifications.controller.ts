import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
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
import { ApiPageQuery, parsePageRequest } from '../../core/http/pagination';
import { NotificationListResponse, NotificationResponse } from './dto/notification.dto';
import { NotificationsService } from './notifications.service';

function unreadFlag(value: unknown): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw ApiError.invalidField('unread', 'must be true or false');
}

@ApiTags('users')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({
  type: ErrorBody,
  example: { message: 'Authentication credentials were not provided.', errors: {} },
})
@Controller('users/me/notifications')
export class NotificationsController {
  constructor(private readonly notificationsService: NotificationsService) {}

  @Get()
  @ApiOperation({
    summary:
      'Your notifications, newest first, whatever their channel (e-mail ones too, with their delivery status). ' +
      'Which are written at all follows your notification_preferences, e.g. {"batch_feedback": "in_app" | "email" | "none"}.',
  })
  @ApiQuery({ name: 'unread', required: false, enum: ['true', 'false'], description: 'true: only those not read yet' })
  @ApiPageQuery({ defaultSize: 25, maxSize: 200 })
  @ApiOkResponse({ type: NotificationListResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'Invalid unread: must be true or false.', errors: { unread: ['must be true or false'] } },
  })
  list(
    @Req() req: Request,
    @Query() query: Record<string, unknown>,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<NotificationListResponse> {
    const page = parsePageRequest(query, { defaultSize: 25, maxSize: 200 });
    return this.notificationsService.list(req, user.userId, unreadFlag(query.unread), page);
  }

  @Post(':id/read')
  @HttpCode(200)
  @ApiParam({ name: 'id', description: 'The notification id' })
  @ApiOperation({ summary: 'Mark one of your notifications read. Marking it again keeps the first read time.' })
  @ApiOkResponse({ type: NotificationResponse })
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Notification not found.', errors: {} } })
  async markRead(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<NotificationResponse> {
    return { data: await this.notificationsService.markRead(user.userId, id) };
  }
}
