import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { ErrorBody } from '../../core/http/error-body';
import { refuseUnknownQueryParameters } from '../../core/http/unknown-query-parameters';
import { AccountsService } from './accounts.service';
import { RegistryCodeAccessListResponse, SAMPLE_PERMISSIONS, SamplePermission } from './dto/registry-code-access.dto';

/** Registry codes as their users read them; SESAR2 clients call them SESAR codes. */
@ApiTags('registry codes')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({
  type: ErrorBody,
  example: { message: 'Authentication credentials were not provided.', errors: {} },
})
@Controller()
export class RegistryCodesController {
  constructor(private readonly accountsService: AccountsService) {}

  @Get('registry-codes')
  @ApiOperation({ summary: 'My registry codes: those I own and those of my teams, with my role and permissions.' })
  @ApiOkResponse({ type: RegistryCodeAccessListResponse })
  async mine(
    @CurrentUser() caller: AuthenticatedUser,
    @Query() query: Record<string, unknown>,
  ): Promise<RegistryCodeAccessListResponse> {
    refuseUnknownQueryParameters(query, [], 'this list');
    return { data: await this.accountsService.registryCodesHeld(caller) };
  }

  @Get('sesar-codes/by-permission')
  @ApiOperation({
    summary:
      'The codes under which I may create, edit or view samples (`create_sample` lists where I may register). ' +
      'Staff and admins get every code.',
  })
  @ApiQuery({ name: 'permission', required: true, enum: SAMPLE_PERMISSIONS })
  @ApiOkResponse({ type: RegistryCodeAccessListResponse })
  @ApiBadRequestResponse({
    type: ErrorBody,
    example: {
      message: 'Invalid permission: must be one of create_sample, edit_sample, view_sample.',
      errors: { permission: ['must be one of create_sample, edit_sample, view_sample'] },
    },
  })
  async byPermission(
    @CurrentUser() caller: AuthenticatedUser,
    @Query() query: Record<string, unknown>,
  ): Promise<RegistryCodeAccessListResponse> {
    refuseUnknownQueryParameters(query, ['permission'], 'this list');
    const permission = query.permission;
    if (typeof permission !== 'string' || !(SAMPLE_PERMISSIONS as readonly string[]).includes(permission)) {
      throw ApiError.invalidField('permission', `must be one of ${SAMPLE_PERMISSIONS.join(', ')}`);
    }
    return { data: await this.accountsService.registryCodesHeld(caller, permission as SamplePermission) };
  }
}
