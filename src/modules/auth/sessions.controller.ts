import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AuthenticatedUser, CurrentUser } from '../../core/auth/authenticated-user';
import { ErrorBody } from '../../core/http/error-body';
import { CONNECTION_TOKEN_FORBIDDEN, refuseConnectionToken } from './connection-token.policy';
import { SessionListResponse, SessionSummary } from './dto/auth.dto';
import { TokenPair } from './token-pair.entity';
import { TokenService } from './token.service';

const REVOKE_SESSIONS = 'revoke sessions';

function summary(pair: TokenPair, caller: AuthenticatedUser): SessionSummary {
  return {
    id: pair.id,
    kind: pair.kind,
    connection: pair.connectionName,
    origin: pair.origin,
    created_at: pair.createdAt.toISOString(),
    expires_at: pair.expiresAt.toISOString(),
    last_used_at: pair.lastUsedAt?.toISOString() ?? null,
    current: pair.id === caller.tokenPairId,
  };
}

/**
 * The caller's sessions (sign-ins through the API or the account pages) and connection-issued
 * pairs, beside the developer tokens: what is signed in where, and a way to end it.
 */
@ApiTags('auth')
@ApiBearerAuth('bearer')
@ApiUnauthorizedResponse({ type: ErrorBody })
@Controller('auth/sessions')
export class SessionsController {
  constructor(private readonly tokenService: TokenService) {}

  @Get()
  @ApiOperation({
    summary: 'Your active sessions and connection-issued token pairs, oldest first (never the tokens themselves).',
  })
  @ApiOkResponse({ type: SessionListResponse })
  async list(@CurrentUser() caller: AuthenticatedUser): Promise<SessionListResponse> {
    const pairs = await this.tokenService.listSessions(caller.userId);
    return { data: pairs.map((pair) => summary(pair, caller)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary:
      'End one of your sessions or connection-issued pairs: its refresh token and access tokens stop working at once.',
  })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBody, example: { message: 'Session not found.', errors: {} } })
  @ApiForbiddenResponse(CONNECTION_TOKEN_FORBIDDEN(REVOKE_SESSIONS))
  async revoke(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string): Promise<void> {
    refuseConnectionToken(caller, REVOKE_SESSIONS);
    await this.tokenService.revokeSession(caller.userId, id);
  }
}
