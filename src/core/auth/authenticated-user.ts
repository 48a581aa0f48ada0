import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';
import type { Sql } from '../database/sql';

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

/**
 * A bearer token whose signature and claims are verified but whose pair is not read yet: what the
 * bearer guard leaves on a route marked `@TokenCheckedInStatement()`, so that the route's own
 * statement reads the pair's state beside its rows (one round trip instead of two). Until `confirm`
 * (or `check`) returns, the caller is unknown: `request.user` is unset and nothing may be answered.
 */
export interface UncheckedCaller {
  /** A scalar subquery to select beside the route's own columns: the pair's state, NULL when it is not usable. */
  readonly state: Sql;
  /**
   * The caller from what `state` selected, also set as `request.user`; an ApiError 401 when the pair
   * is revoked or rotated past this token, or the account is not active.
   */
  confirm(state: unknown): Promise<AuthenticatedUser>;
  /** The same check as a statement of its own, for when the route's statement selected no row. */
  check(): Promise<AuthenticatedUser>;
}

export type AuthenticatedRequest = Request & { user?: AuthenticatedUser; uncheckedCaller?: UncheckedCaller };

/** The caller as a route marked `@TokenCheckedInStatement()` gets it: known, unchecked or anonymous. */
export type RequestCaller = AuthenticatedUser | UncheckedCaller | undefined;

export function isUncheckedCaller(caller: RequestCaller): caller is UncheckedCaller {
  return caller !== undefined && 'confirm' in caller;
}

/**
 * The caller on an authenticated route. On a `@Public()` route it is the caller when a valid token
 * was sent and `undefined` otherwise (an invalid token is refused with 401 even there).
 */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser | undefined =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().user,
);

/**
 * The caller on a route marked `@TokenCheckedInStatement()`: the checked user, the token still to be
 * checked (UncheckedCaller), or undefined without a token.
 */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): RequestCaller => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  return request.user ?? request.uncheckedCaller;
});
