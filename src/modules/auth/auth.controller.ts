import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { Public } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import { AcceptsContentTypes } from '../../core/http/content-type.guard';
import { ErrorBody } from '../../core/http/error-body';
import { AccountsService } from '../accounts/accounts.service';
import { AuthThrottlerGuard } from './auth-throttler.guard';
import { CONNECTION_TOKEN_FORBIDDEN, refuseConnectionToken } from './connection-token.policy';
import { ConnectionService } from './connection.service';
import {
  ConnectionExchangeRequest,
  DeveloperTokenCreatedResponse,
  DeveloperTokenListResponse,
  LoginRequest,
  MessageResponse,
  RefreshRequest,
  RevokedCountResponse,
  TokenPairResponse,
} from './dto/auth.dto';
import { INVALID_REFRESH_MESSAGE, TokenService } from './token.service';

const FORM_OR_JSON = ['application/json', 'application/x-www-form-urlencoded'];
const TOO_MANY = { type: ErrorBody, example: { message: 'Too many attempts; try again in 42 seconds.', errors: {} } };
const INVALID_REFRESH = { type: ErrorBody, example: { message: INVALID_REFRESH_MESSAGE, errors: {} } };

const CREATE_DEVELOPER_TOKENS = 'create developer tokens';
const REVOKE_DEVELOPER_TOKENS = 'revoke developer tokens';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly accountsService: AccountsService,
    private readonly tokenService: TokenService,
    private readonly connectionService: ConnectionService,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @AcceptsContentTypes(...FORM_OR_JSON)
  @ApiOperation({ summary: 'Sign in with email and password: a session token pair (access 1 hour, refresh 14 days).' })
  @ApiOkResponse({ type: TokenPairResponse })
  @ApiUnauthorizedResponse({ type: ErrorBody, example: { message: 'Invalid email or password.', errors: {} } })
  @ApiTooManyRequestsResponse(TOO_MANY)
  async login(@Body() body: LoginRequest): Promise<TokenPairResponse> {
    const user = await this.accountsService.authenticate(body.email, body.password);
    if (!user) throw ApiError.unauthorized('Invalid email or password.');
    const pair = await this.tokenService.issuePair(user.id, 'session', null, 'api');
    return { data: { access: pair.access, refresh: pair.refresh } };
  }

  @Public()
  @Post('token/refresh')
  @HttpCode(200)
  @UseGuards(AuthThrottlerGuard)
  @AcceptsContentTypes(...FORM_OR_JSON)
  @ApiConsumes(...FORM_OR_JSON)
  @ApiOperation({
    summary: 'Rotate a refresh token: a new pair; the old refresh token and its access tokens stop working at once.',
  })
  @ApiOkResponse({ type: TokenPairResponse })
  @ApiUnauthorizedResponse(INVALID_REFRESH)
  @ApiTooManyRequestsResponse(TOO_MANY)
  async refresh(@Body() body: RefreshRequest): Promise<TokenPairResponse> {
    const pair = await this.tokenService.rotate(body.refresh);
    return { data: { refresh: pair.refresh, access: pair.access } };
  }

  @Public()
  @Post('token/blacklist')
  @HttpCode(200)
  @SkipThrottle({ account: true })
  @UseGuards(AuthThrottlerGuard)
  @AcceptsContentTypes(...FORM_OR_JSON)
  @ApiConsumes(...FORM_OR_JSON)
  @ApiOperation({ summary: 'Revoke one refresh token (and the access tokens of its pair) without signing in.' })
  @ApiOkResponse({ type: MessageResponse })
  @ApiUnauthorizedResponse(INVALID_REFRESH)
  async blacklist(@Body() body: RefreshRequest): Promise<MessageResponse> {
    await this.tokenService.revokeByRefreshToken(body.refresh);
    return { data: { message: 'Token blacklisted.' } };
  }

  @Delete('token/blacklist-all')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary: 'Revoke every developer token pair of the account. Connection-issued tokens are not affected.',
  })
  @ApiOkResponse({ type: RevokedCountResponse })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  @ApiForbiddenResponse(CONNECTION_TOKEN_FORBIDDEN(REVOKE_DEVELOPER_TOKENS))
  async blacklistAll(@CurrentUser() caller: AuthenticatedUser): Promise<RevokedCountResponse> {
    refuseConnectionToken(caller, REVOKE_DEVELOPER_TOKENS);
    return { data: { revoked_count: await this.tokenService.revokeAllDeveloperPairs(caller.userId) } };
  }

  @Public()
  @Post('token/:connection')
  @HttpCode(200)
  @SkipThrottle({ account: true })
  @UseGuards(AuthThrottlerGuard)
  @AcceptsContentTypes(...FORM_OR_JSON)
  @ApiConsumes(...FORM_OR_JSON)
  @ApiBody({ type: ConnectionExchangeRequest })
  @ApiOperation({
    summary: 'Exchange an OpenID Connect id_token from a configured integration connection for a token pair.',
  })
  @ApiOkResponse({ type: TokenPairResponse })
  @ApiUnauthorizedResponse({
    type: ErrorBody,
    description:
      'An invalid or expired id_token (`errors` empty), or a valid one whose identity matches no account ' +
      '(`errors.token`: the client offers to sign up).',
    example: {
      message: 'No registry account matches this identity.',
      errors: { token: ['matches no registry account; sign up (or link your ORCID iD) first'] },
    },
  })
  @ApiForbiddenResponse({
    type: ErrorBody,
    description:
      'The account has no upload permission (`errors.permissions`): the client offers POST /api/api-access-request/.',
    example: {
      message: 'This account has no upload permission.',
      errors: { permissions: ['upload permission is required; ask for it with POST /api/api-access-request/'] },
    },
  })
  @ApiNotFoundResponse({
    type: ErrorBody,
    example: { message: 'No integration connection named lab-lims.', errors: {} },
  })
  @ApiTooManyRequestsResponse(TOO_MANY)
  async exchange(
    @Param('connection') connectionName: string,
    @Body() body: ConnectionExchangeRequest,
  ): Promise<TokenPairResponse> {
    const { user, connection } = await this.connectionService.resolveUser(connectionName, body.token);
    const pair = await this.tokenService.issuePair(user.id, 'connection', connection.name);
    return { data: { access: pair.access, refresh: pair.refresh } };
  }

  @Post('developer-tokens')
  @ApiBearerAuth('bearer')
  @ApiOperation({
    summary:
      'Generate a developer token pair (shown only now). Needs upload permission; a sixth active pair revokes the oldest.',
  })
  @ApiCreatedResponse({ type: DeveloperTokenCreatedResponse })
  @ApiForbiddenResponse({
    type: ErrorBody,
    description: 'Without upload permission, or with a token issued to an integration connection.',
    example: { message: 'Generating developer tokens requires upload permission.', errors: {} },
  })
  async createDeveloperToken(@CurrentUser() caller: AuthenticatedUser): Promise<DeveloperTokenCreatedResponse> {
    refuseConnectionToken(caller, CREATE_DEVELOPER_TOKENS);
    if (!caller.uploadPermission) throw ApiError.forbidden('Generating developer tokens requires upload permission.');
    const pair = await this.tokenService.issuePair(caller.userId, 'developer');
    return {
      data: {
        id: pair.id,
        access: pair.access,
        refresh: pair.refresh,
        created_at: pair.createdAt.toISOString(),
        expires_at: pair.expiresAt.toISOString(),
      },
    };
  }

  @Get('developer-tokens')
  @ApiBearerAuth('bearer')
  @ApiOperation({ summary: 'The active developer token pairs (never the tokens themselves).' })
  @ApiOkResponse({ type: DeveloperTokenListResponse })
  @ApiUnauthorizedResponse({ type: ErrorBody })
  async listDeveloperTokens(@CurrentUser() caller: AuthenticatedUser): Promise<DeveloperTokenListResponse> {
    const pairs = await this.tokenService.listDeveloperPairs(caller.userId);
    return {
      data: pairs.map((pair) => ({
        id: pair.id,
        created_at: pair.createdAt.toISOString(),
        expires_at: pair.expiresAt.toISOString(),
        last_used_at: pair.lastUsedAt?.toISOString() ?? null,
      })),
    };
  }

  @Delete('developer-tokens/:id')
  @HttpCode(204)
  @ApiBearerAuth('bearer')
  @ApiOperation({ summary: 'Revoke one developer token pair.' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Developer token not found.', errors: {} } })
  @ApiForbiddenResponse(CONNECTION_TOKEN_FORBIDDEN(REVOKE_DEVELOPER_TOKENS))
  async deleteDeveloperToken(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string): Promise<void> {
    refuseConnectionToken(caller, REVOKE_DEVELOPER_TOKENS);
    await this.tokenService.revokeDeveloperPair(caller.userId, id);
  }
}
