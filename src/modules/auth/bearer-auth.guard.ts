import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { VerifyOptions, verify } from 'jsonwebtoken';
import type { KeyObject } from 'node:crypto';
import { AuthenticatedRequest } from '../../core/auth/authenticated-user';
import { IS_PUBLIC_KEY } from '../../core/auth/public.decorator';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { ApiError } from '../../core/http/api-error';
import { TOKEN_ALGORITHM, TOKEN_ISSUER, jwtSigningKey } from './jwt-signing-key';
import { AccessClaims, TokenService } from './token.service';

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)\s*$/i;

/** Signature (HS256 only) and issuer; times are checked against the service clock (tests move it). */
const VERIFY: VerifyOptions & { complete?: false } = {
  algorithms: [TOKEN_ALGORITHM],
  issuer: TOKEN_ISSUER,
  ignoreExpiration: true,
  ignoreNotBefore: true,
};

/**
 * The global guard: every route needs `Authorization: Bearer <access token>` unless marked
 * `@Public()`. Any other scheme (`Token`, `Basic`, `JWT`) is refused, as is a token that is
 * malformed, signed with another key or algorithm, expired, not yet valid, a refresh token, or
 * revoked. On public routes a valid token still identifies the caller; an invalid one is refused.
 * The signature is checked here with jsonwebtoken and the key imported once (no passport strategy
 * and its per-request machinery); TokenService.authenticateClaims checks the rest.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  private readonly key: KeyObject;

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
    @InjectAppConfig() config: AppConfig,
  ) {
    this.key = jwtSigningKey(config.auth.jwtSecret);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, [
        context.getHandler(),
        context.getClass(),
      ]);
      if (isPublic) return true;
      throw ApiError.unauthorized('Authentication credentials were not provided.');
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) throw ApiError.unauthorized('Use the Authorization header "Bearer <access token>".');
    const user = await this.tokens.authenticateClaims(this.verifiedClaims(token));
    request.user = user;
    // Every kind, so the developer token and session lists can say when each was last used.
    await this.tokens.touch(user.tokenPairId);
    return true;
  }

  private verifiedClaims(token: string): AccessClaims {
    let claims: unknown;
    try {
      claims = verify(token, this.key, VERIFY);
    } catch {
      throw ApiError.unauthorized('The access token is invalid.');
    }
    if (typeof claims !== 'object' || claims === null) throw ApiError.unauthorized('The access token is invalid.');
    return claims as AccessClaims;
  }
}
