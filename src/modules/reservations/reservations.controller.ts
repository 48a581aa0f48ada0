import { Body, Controller, Post, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ErrorBody } from '../../core/http/error-body';
import { ReservationResponse, ReserveSamplesDto } from './dto/reservation.dto';
import { RESERVE_INLINE_MAX, ReservationsService } from './reservations.service';

@ApiTags('samples')
@ApiBearerAuth('bearer')
@Controller('samples')
export class ReservationsController {
  constructor(private readonly reservationsService: ReservationsService) {}

  @Post('reserve')
  @ApiOperation({
    summary: 'Reserve IGSNs before fieldwork: samples in the `reserved` state, to be described later.',
    description:
      'Mints `count` (1-10,000) IGSNs under the registry code as samples you own, named `<name_prefix> <IGSN>`, ' +
      'without object type or coordinates, never public and not sent to DataCite. Complete one with PATCH (or a ' +
      'batch row, or legacy XML update, naming its IGSN): it becomes a draft (`is_draft: true`, object type ' +
      'required) or is published (object type, latitude and longitude required). Release an unused one with ' +
      'POST /api/samples/{igsn}/deactivate/. List them with GET /api/samples/?metadata_store_status=reserved ' +
      `(other searches leave them out). Up to ${RESERVE_INLINE_MAX}: 201 with the IGSNs; more: 202 with a ` +
      '`sample_reservation` job whose result lists them.',
  })
  @ApiCreatedResponse({ type: ReservationResponse })
  @ApiAcceptedResponse({ type: ReservationResponse, description: 'More than 1,000: minted by a background job.' })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'Validation failed: count.', errors: { count: ['count must not be greater than 10000'] } },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse({
    type: ErrorBody,
    example: { message: 'You may not register samples under registry code IEXYZ.', errors: {} },
  })
  async reserve(
    @Body() body: ReserveSamplesDto,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ReservationResponse> {
    const { reservation, queued } = await this.reservationsService.reserve(body, user);
    res.status(queued ? 202 : 201);
    return { data: reservation };
  }
}
