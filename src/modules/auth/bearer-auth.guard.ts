import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { TokenExpiredError } from 'jsonwebtoken';
import { AuthenticatedRequest } from '../../core/auth/authenticated-user';
import { IS_PUBLIC_KEY } from '../../core/auth/public.decorator';
import { TOKEN_CHECKED_IN_STATEMENT_KEY } from '../../core/auth/token-checked-in-statement.decorator';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { ApiError } from '../../core/http/api-error';
import { ACCESS_TOKEN_STRATEGY } from './access-token.strategy';
import { AccessClaims, TokenService } from './token.service';

/** Verified tokens a process remembers before it starts over (a few hundred bytes each). */
const VERIFIED_TOKEN_MEMORY = 10_000;
/**
 * Longer headers are verified every time, not remembered: a token is a few hundred characters, and
 * padding one valid token with whitespace must not fill the memory with megabytes of variants.
 */
const REMEMBERED_HEADER_LENGTH = 2_048;

const BEARER = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)\s*$/i;

/**
 * The global guard: every route needs `Authorization: Bearer <access token>` unless marked
 * `@Public()`. Any other scheme (`Token`, `Basic`, `JWT`) is refused, as is a token that is
 * malformed, signed with another key or algorithm, expired, not yet valid, a refresh token, or
 * revoked. On public routes a valid token still identifies the caller; an invalid one is refused.
 * A route marked `@TokenCheckedInStatement()` reads the pair in its own statement (UncheckedCaller),
 * unless standbys serve reads (DATABASE_READ_URLS).
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard(ACCESS_TOKEN_STRATEGY) {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokenService: TokenService,
    private readonly readRouting: ReadRouting,
  ) {
    super();
  }

  /** Authorization headers whose access token this process verified, with its claims (see verify). */
  private readonly verifiedTokens = new Map<string, Readonly<AccessClaims>>();

  override async canActivate(context: ExecutionContext): Promise<boolean> {
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
    const claims = this.verifiedTokens.get(header) ?? (await this.verify(context, request, header));
    // With standbys the route's statement may run on one, which cannot vouch for a revocation made
    // a moment ago on the primary; and read routing needs the caller before the handler runs.
    if (
      !this.readRouting.enabled &&
      this.reflector.getAllAndOverride<boolean | undefined>(TOKEN_CHECKED_IN_STATEMENT_KEY, [
        context.getHandler(),
        context.getClass(),
      ])
    ) {
      // The route's own statement reads the pair; until it confirms, the caller is unknown.
      request.user = undefined;
      request.uncheckedCaller = this.tokenService.uncheckedCaller(claims, request);
      return true;
    }
    const user = await this.tokenService.authenticateClaims(claims);
    request.user = user;
    // Every kind, so the developer token and session lists can say when each was last used.
    await this.tokenService.touch(user.tokenPairId);
    return true;
  }

  /**
   * The claims of the token in an Authorization header through passport-jwt (signature and issuer),
   * remembered by header: one that verified once verifies always, so the next requests with it skip
   * the header's pattern, passport, the HMAC and the JSON parsing.
   * Only the signature's verdict is kept; times, type and the pair's state are checked on every request.
   */
  private async verify(
    context: ExecutionContext,
    request: AuthenticatedRequest,
    header: string,
  ): Promise<AccessClaims> {
    if (!BEARER.test(header)) throw ApiError.unauthorized('Use the Authorization header "Bearer <access token>".');
    await super.canActivate(context);
    const claims = Object.freeze(request.user as unknown as AccessClaims);
    if (header.length <= REMEMBERED_HEADER_LENGTH) {
      if (this.verifiedTokens.size >= VERIFIED_TOKEN_MEMORY) this.verifiedTokens.clear();
      this.verifiedTokens.set(header, claims);
    }
    return claims;
  }

  /** passport's verdict as the contract's 401s. */
  override handleRequest<TUser = AccessClaims>(error: unknown, user: TUser | false, info: unknown): TUser {
    if (error instanceof Error) throw error;
    if (!user) {
      throw ApiError.unauthorized(
        info instanceof TokenExpiredError ? 'The access token has expired.' : 'The access token is invalid.',
      );
    }
    return user;
  }
}
