import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../../core/auth/authenticated-user';
import { Public } from '../../../core/auth/public.decorator';
import { ErrorBody } from '../../../core/http/error-body';
import { ApiIgsnPath } from '../igsn-path.openapi';
import { LINEAGE_MAX_DEPTH, LINEAGE_MAX_NODES, SampleLineageQuery, SampleLineageResponse } from './sample-lineage.dto';
import { SampleLineageService } from './sample-lineage.service';

/** `{igsn}` may be the bare suffix or the DOI form with its slash: both route shapes lead here. */
function igsnOf(params: { igsn?: string; prefix?: string; suffix?: string }): string {
  return params.prefix !== undefined ? `${params.prefix}/${params.suffix ?? ''}` : (params.igsn ?? '');
}

@ApiTags('samples')
@Controller('samples')
export class SampleLineageController {
  constructor(private readonly sampleLineageService: SampleLineageService) {}

  @Public()
  @Get([':igsn/lineage', ':prefix/:suffix/lineage'])
  @ApiIgsnPath()
  @ApiOperation({
    summary: "A sample's parents and children (its lineage), as far as asked.",
    description:
      `At most ${LINEAGE_MAX_DEPTH} levels each way and ${LINEAGE_MAX_NODES} nodes; \`truncated\` is true when ` +
      'more lie beyond. The sample itself follows the rules of GET /api/samples/{igsn}/ (401, 404); a parent or ' +
      'child the caller may not see appears as `{"visible": false}` with none of its fields.',
  })
  @ApiOkResponse({ type: SampleLineageResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: { message: 'Validation failed: depth.', errors: { depth: ['depth must not be greater than 20'] } },
  })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Sample not found.', errors: {} } })
  async lineageOf(
    @Param() params: { igsn?: string; prefix?: string; suffix?: string },
    @Query() query: SampleLineageQuery,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<SampleLineageResponse> {
    return { data: await this.sampleLineageService.lineageOf(igsnOf(params), query, user) };
  }
}
