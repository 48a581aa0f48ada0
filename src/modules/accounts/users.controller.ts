import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ErrorBody } from '../../core/http/error-body';
import { AccountsService } from './accounts.service';
import { UserDetailsResponse, serializeRegistryUser } from './dto/user-details.dto';

@ApiTags('users')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({
  type: ErrorBody,
  example: { message: 'Authentication credentials were not provided.', errors: {} },
})
@Controller()
export class UsersController {
  constructor(
    private readonly accountsService: AccountsService,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {}

  @Get(['users/me', 'auth/user'])
  @ApiOperation({ summary: 'The signed-in user and, for connection-issued tokens, the connection name.' })
  @ApiOkResponse({ type: UserDetailsResponse })
  async me(@CurrentUser() caller: AuthenticatedUser): Promise<UserDetailsResponse> {
    const user = await this.accountsService.requireUser(caller.userId);
    return {
      data: { user: serializeRegistryUser(user, this.config.igsn.doiPrefix), jwt_connection: caller.connection },
    };
  }
}
