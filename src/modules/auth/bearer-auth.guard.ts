import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedRequest } from '../../core/auth/authenticated-user';
import { IS_PUBLIC_KEY } from '../../core/auth/public.decorator';
import { ApiError } from '../../core/http/api-error';
import { TokenService } from './token.service';

/**
 * The global guard: every route needs `Authorization: Bearer <access token>` unless marked
 * `@Public()`. Any other scheme (`Token`, `Basic`, `JWT`) is refused, as is a token that is
 * malformed, signed with another key or algorithm, expired, not yet valid, a refresh token, or
 * revoked. On public routes a valid token still identifies the caller; an invalid one is refused.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      if (isPublic) return true;
      throw ApiError.unauthorized('Authentication credentials were not provided.');
    }
    const match = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)\s*$/i.exec(header);
    if (!match) {
      throw ApiError.unauthorized('Use the Authorization header "Bearer <access token>".');
    }
    request.user = await this.tokens.authenticate(match[1]);
    if (request.user.tokenKind === 'developer') await this.tokens.touch(request.user.tokenPairId);
    return true;
  }
}
