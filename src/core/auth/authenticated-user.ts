import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling, as established by the bearer-token guard from a valid, unrevoked access token. */
export interface AuthenticatedUser {
  userId: number;
  /** Null for an account made by ORCID sign-in without a verified email address. */
  email: string | null;
  isStaff: boolean;
  isAdmin: boolean;
  /** 1 when the account may upload and generate developer tokens. */
  uploadPermission: boolean;
  /** The token pair the access token belongs to. */
  tokenPairId: string;
  /** `session`, `developer` or `connection`. */
  tokenKind: 'session' | 'developer' | 'connection';
  /** The integration connection's name for connection-issued tokens, otherwise null. */
  connection: string | null;
  /**
   * The caller's team memberships when the guard read them with the token (one query per request);
   * absent for callers built elsewhere (workers), whose memberships are looked up when needed.
   */
  teams?: { teamId: number; role: 'viewer' | 'editor' | 'manager' }[];
}

export type AuthenticatedRequest = Request & { user?: AuthenticatedUser };

/**
 * The caller on an authenticated route. On a `@Public()` route it is the caller when a valid token
 * was sent and `undefined` otherwise (an invalid token is refused with 401 even there).
 */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser | undefined =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().user,
);
