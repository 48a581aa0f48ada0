import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import {
  ApiBadRequestBody,
  ApiConflictBody,
  ApiForbiddenBody,
  ApiNotFoundBody,
  ApiUnauthorizedBody,
} from '../../core/http/api-error-responses';
import { parsePathId } from '../../core/http/row-id';
import {
  LaunchPlatformPatchDto,
  LaunchPlatformResponse,
  PlatformPatchDto,
  PlatformResponse,
  toLaunchPlatformDto,
  toPlatformDto,
} from './dto/platform-input.dto';
import { PlatformsService } from './platforms.service';

/** Platforms (ships, drill rigs) that sample writes name by label; corrected here by those who may edit them. */
@ApiTags('platforms')
@Controller('platforms')
export class PlatformsController {
  constructor(private readonly platformsService: PlatformsService) {}

  @Public()
  @Get(':id')
  @ApiOperation({ summary: 'One platform (a sample shows the id of its platform).' })
  @ApiParam({ name: 'id', type: 'integer', example: 5 })
  @ApiOkResponse({ type: PlatformResponse })
  @ApiNotFoundBody('Platform 5 not found.')
  async get(@Param('id') rawId: string, @CurrentUser() user: AuthenticatedUser | undefined): Promise<PlatformResponse> {
    const id = parsePathId(rawId, `Platform ${rawId} not found.`);
    return { data: toPlatformDto(await this.platformsService.get(id), user) };
  }

  @Patch(':id')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Correct a platform: the fields sent replace the stored ones. Only callers who may edit it (`can_edit`: ' +
      'its creator, staff, admins).',
  })
  @ApiParam({ name: 'id', type: 'integer', example: 5 })
  @ApiOkResponse({ type: PlatformResponse })
  @ApiBadRequestBody({
    message: 'Invalid platform_type: unknown platform type "Boat"; use a label from GET /api/platform-types/.',
    errors: { platform_type: ['unknown platform type "Boat"; use a label from GET /api/platform-types/'] },
  })
  @ApiUnauthorizedBody()
  @ApiForbiddenBody('You may not edit this platform.')
  @ApiNotFoundBody('Platform 5 not found.')
  @ApiConflictBody({
    message: 'A platform labelled "R/V Atlantis" already exists (id 5).',
    errors: { label: ['a platform with this label already exists'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: PlatformPatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<PlatformResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = parsePathId(rawId, `Platform ${rawId} not found.`);
    return { data: toPlatformDto(await this.platformsService.update(id, body, user), user) };
  }
}

/** Launch platforms (ROVs, submersibles) that sample writes name by label; corrected as platforms are. */
@ApiTags('platforms')
@Controller('launch-platforms')
export class LaunchPlatformsController {
  constructor(private readonly platformsService: PlatformsService) {}

  @Public()
  @Get(':id')
  @ApiOperation({ summary: 'One launch platform (a sample shows the id of its launch platform).' })
  @ApiParam({ name: 'id', type: 'integer', example: 2 })
  @ApiOkResponse({ type: LaunchPlatformResponse })
  @ApiNotFoundBody('Launch platform 2 not found.')
  async get(
    @Param('id') rawId: string,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<LaunchPlatformResponse> {
    const id = parsePathId(rawId, `Launch platform ${rawId} not found.`);
    return { data: toLaunchPlatformDto(await this.platformsService.getLaunchPlatform(id), user) };
  }

  @Patch(':id')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Correct a launch platform: the fields sent replace the stored ones. Only callers who may edit it ' +
      '(`can_edit`: its creator, staff, admins).',
  })
  @ApiParam({ name: 'id', type: 'integer', example: 2 })
  @ApiOkResponse({ type: LaunchPlatformResponse })
  @ApiBadRequestBody({
    message: 'Invalid launch_type: unknown launch type "Rocket"; use a label from GET /api/launch-types/.',
    errors: { launch_type: ['unknown launch type "Rocket"; use a label from GET /api/launch-types/'] },
  })
  @ApiUnauthorizedBody()
  @ApiForbiddenBody('You may not edit this launch platform.')
  @ApiNotFoundBody('Launch platform 2 not found.')
  @ApiConflictBody({
    message: 'A launch platform labelled "ROV Jason" already exists (id 2).',
    errors: { label: ['a launch platform with this label already exists'] },
  })
  async update(
    @Param('id') rawId: string,
    @Body() body: LaunchPlatformPatchDto,
    @CurrentUser() user: AuthenticatedUser | undefined,
  ): Promise<LaunchPlatformResponse> {
    if (!user) throw ApiError.unauthorized();
    const id = parsePathId(rawId, `Launch platform ${rawId} not found.`);
    return { data: toLaunchPlatformDto(await this.platformsService.updateLaunchPlatform(id, body, user), user) };
  }
}
