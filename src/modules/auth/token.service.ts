import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { JwtPayload } from 'jsonwebtoken';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../core/clock';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { AuthenticatedRequest, AuthenticatedUser, UncheckedCaller } from '../../core/auth/authenticated-user';
import { ApiError } from '../../core/http/api-error';
import { isUuid } from '../../core/http/uuid';
import { UserRepository } from '../accounts/user.repository';
import { PairOrigin, TokenKind, TokenPair } from './token-pair.entity';
import { PairStateRow, TokenPairRepository } from './token-pair.repository';

export const INVALID_REFRESH_MESSAGE = 'Invalid or expired refresh token.';
export const MAX_ACTIVE_DEVELOPER_PAIRS = 5;
const TOUCH_INTERVAL_MS = 60_000;
/** Pairs whose last touch a process remembers before it starts over. */
const TOUCH_MEMORY = 10_000;

export interface AccessClaims extends JwtPayload {
  typ: 'access';
  sid: string;
  gen: number;
  kind: TokenKind;
  connection?: string;
}

interface RefreshClaims extends JwtPayload {
  typ: 'refresh';
  sid: string;
  gen: number;
}

interface BrowserSessionClaims extends JwtPayload {
  typ: 'browser';
  sid: string;
  gen: number;
}

export interface IssuedPair {
  id: string;
  access: string;
  refresh: string;
  createdAt: Date;
  expiresAt: Date;
  /** Developer pairs this one displaced (the oldest beyond five), oldest first. */
  evicted: { id: string; createdAt: Date }[];
}

/** A browser's session on the account pages: the cookie's token and the session pair it stands for. */
export interface BrowserSession {
  token: string;
  pairId: string;
  expiresAt: Date;
}

/** Kinds of pair a user lists and revokes as "sessions" (developer pairs have their own list). */
export const SESSION_KINDS: TokenKind[] = ['session', 'connection'];
const SESSION_NOT_FOUND = 'Session not found.';

/**
 * Issues, rotates, verifies and revokes token pairs. Tokens are HS256 JWTs; only HS256 is ever
 * accepted, so `alg: none` and other-key tokens fail verification. The token_pair row is the
 * truth: the guard reads it with the user on every request, so a revocation holds at once on
 * every replica.
 */
@Injectable()
export class TokenService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokenPairRepository: TokenPairRepository,
    private readonly userRepository: UserRepository,
    @InjectAppConfig() private readonly config: AppConfig,
    private readonly jwtService: JwtService,
    private readonly clock: Clock,
  ) {}

  private readonly touchedAt = new Map<string, number>();

  private lifetimes(kind: TokenKind): { access: number; refresh: number } {
    const auth = this.config.auth;
    return kind === 'session'
      ? { access: auth.sessionAccessTtlSeconds, refresh: auth.sessionRefreshTtlSeconds }
      : { access: auth.accessTtlSeconds, refresh: auth.refreshTtlSeconds };
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  private sign(pair: TokenPair, refreshJti: string): { access: string; refresh: string } {
    const now = this.nowSeconds();
    const { access, refresh } = this.lifetimes(pair.kind);
    const accessClaims: AccessClaims = {
      typ: 'access',
      sid: pair.id,
      gen: pair.generation,
      kind: pair.kind,
      ...(pair.connectionName ? { connection: pair.connectionName } : {}),
      iat: now,
      exp: now + access,
    };
    const refreshClaims: RefreshClaims = { typ: 'refresh', sid: pair.id, gen: pair.generation, iat: now };
    const subject = String(pair.userId);
    return {
      access: this.jwtService.sign(accessClaims, { subject, jwtid: randomUUID() }),
      refresh: this.jwtService.sign(
        { ...refreshClaims, exp: Math.min(now + refresh, Math.floor(pair.expiresAt.getTime() / 1000)) },
        { subject, jwtid: refreshJti },
      ),
    };
  }

  /**
   * A new pair for the user. For developer pairs, at most five stay active: creating a sixth
   * revokes the oldest. The user's row is locked meanwhile so two concurrent creations cannot
   * both see four active pairs.
   */
  async issuePair(
    userId: number,
    kind: TokenKind,
    connectionName: string | null = null,
    origin: PairOrigin | null = null,
  ): Promise<IssuedPair> {
    const { pair, refreshJti, evicted } = await this.insertPair(userId, kind, connectionName, origin);
    return {
      id: pair.id,
      ...this.sign(pair, refreshJti),
      createdAt: pair.createdAt,
      expiresAt: pair.expiresAt,
      evicted: evicted.map((old) => ({ id: old.id, createdAt: old.createdAt })),
    };
  }

  private async insertPair(
    userId: number,
    kind: TokenKind,
    connectionName: string | null,
    origin: PairOrigin | null,
  ): Promise<{ pair: TokenPair; refreshJti: string; evicted: TokenPair[] }> {
    return this.dataSource.transaction(async (manager) => {
      const now = this.clock.now();
      let evicted: TokenPair[] = [];
      if (kind === 'developer') {
        await this.userRepository.lockForUpdate(manager, userId);
        const active = await this.activePairs(userId, ['developer'], manager);
        const excess = active.length - (MAX_ACTIVE_DEVELOPER_PAIRS - 1);
        if (excess > 0) {
          evicted = active.slice(0, excess);
          await this.tokenPairRepository.revoke(
            evicted.map((pair) => pair.id),
            { reason: 'evicted', now: this.clock.now(), kinds: ['developer'] },
            manager,
          );
        }
      }
      const refreshJti = randomUUID();
      const pair = await this.tokenPairRepository.insert(manager, {
        id: randomUUID(),
        userId,
        kind,
        connectionName,
        origin,
        generation: 1,
        refreshJti,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.lifetimes(kind).refresh * 1000),
      });
      return { pair, refreshJti, evicted };
    });
  }

  /**
   * A session for a browser signed in on the account pages: a session pair (listed and revoked
   * with the user's other sessions) whose tokens are never handed out. The browser keeps a token of
   * its own type (`typ: browser`) in an HttpOnly cookie, which neither the bearer guard (it takes
   * `access` tokens) nor refresh and blacklist (they take `refresh` tokens) accept, so the cookie
   * cannot become an API credential. It lasts as long as a session pair's refresh token
   * (SESSION_REFRESH_TTL) from sign-in, and ends at once when the pair is revoked.
   */
  async issueBrowserSession(userId: number, origin: 'browser-password' | 'browser-orcid'): Promise<BrowserSession> {
    const { pair } = await this.insertPair(userId, 'session', null, origin);
    const claims: BrowserSessionClaims = {
      typ: 'browser',
      sid: pair.id,
      gen: pair.generation,
      iat: this.nowSeconds(),
      exp: Math.floor(pair.expiresAt.getTime() / 1000),
    };
    const token = this.jwtService.sign(claims, { subject: String(pair.userId), jwtid: randomUUID() });
    return { token, pairId: pair.id, expiresAt: pair.expiresAt };
  }

  /** The signed-in user behind a browser session cookie's token, or undefined (expired, revoked, forged). */
  async authenticateBrowserSession(token: string): Promise<AuthenticatedUser | undefined> {
    if (token.length === 0 || token.length > 4096) return undefined;
    let claims: string | JwtPayload;
    try {
      claims = this.jwtService.verify<JwtPayload>(token, { clockTimestamp: this.nowSeconds() });
    } catch {
      return undefined;
    }
    if (
      typeof claims === 'string' ||
      claims.typ !== 'browser' ||
      typeof claims.exp !== 'number' ||
      typeof claims.sub !== 'string' ||
      !isUuid(claims.sid) ||
      !Number.isInteger(claims.gen)
    ) {
      return undefined;
    }
    const caller = this.pairCaller(
      claims.sid,
      claims.gen as number,
      claims.sub,
      await this.tokenPairRepository.pairState(claims.sid),
    );
    if (!caller || caller.tokenKind !== 'session') return undefined;
    await this.touch(caller.tokenPairId);
    return caller;
  }

  /** Active (unrevoked, unexpired) pairs of these kinds, oldest first. */
  private async activePairs(userId: number, kinds: TokenKind[], manager?: EntityManager): Promise<TokenPair[]> {
    const pairs = await this.tokenPairRepository.unrevoked(userId, kinds, manager);
    const now = this.clock.now().getTime();
    return pairs.filter((pair) => pair.expiresAt.getTime() > now);
  }

  async listDeveloperPairs(userId: number): Promise<TokenPair[]> {
    return this.activePairs(userId, ['developer']);
  }

  /** The user's active session pairs (API sign-ins and browser sessions) and connection-issued pairs. */
  async listSessions(userId: number): Promise<TokenPair[]> {
    return this.activePairs(userId, SESSION_KINDS);
  }

  /** Revokes one of the user's session or connection pairs; 404 when it is not theirs or not active. */
  async revokeSession(userId: number, pairId: string): Promise<void> {
    if (!isUuid(pairId)) throw ApiError.notFound(SESSION_NOT_FOUND);
    const revoked = await this.tokenPairRepository.revoke([pairId], {
      reason: 'deleted',
      now: this.clock.now(),
      userId,
      kinds: SESSION_KINDS,
    });
    if (revoked !== 1) throw ApiError.notFound(SESSION_NOT_FOUND);
  }

  private verifyRefresh(token: unknown): RefreshClaims & { sub: string; jti: string } {
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) {
      throw ApiError.unauthorized(INVALID_REFRESH_MESSAGE);
    }
    let claims: string | JwtPayload;
    try {
      claims = this.jwtService.verify<JwtPayload>(token, { clockTimestamp: this.nowSeconds() });
    } catch {
      throw ApiError.unauthorized(INVALID_REFRESH_MESSAGE);
    }
    if (
      typeof claims === 'string' ||
      claims.typ !== 'refresh' ||
      typeof claims.exp !== 'number' ||
      !claims.jti ||
      !claims.sub ||
      typeof claims.sid !== 'string' ||
      !isUuid(claims.sid) ||
      !Number.isInteger(claims.gen)
    ) {
      throw ApiError.unauthorized(INVALID_REFRESH_MESSAGE);
    }
    return claims as RefreshClaims & { sub: string; jti: string };
  }

  /**
   * Rotation: the presented refresh token is swapped for a new pair in one conditional UPDATE, so
   * of any number of concurrent uses exactly one succeeds; the old refresh token and the access
   * tokens of the old generation stop working at once. The new refresh token gets a full lifetime
   * from now (as simplejwt's rotation does), so a pair in use does not lapse.
   */
  async rotate(refreshToken: unknown): Promise<{ access: string; refresh: string }> {
    const claims = this.verifyRefresh(refreshToken);
    const newJti = randomUUID();
    const pair = await this.tokenPairRepository.rotate(
      { id: claims.sid, jti: claims.jti, newJti, now: this.clock.now() },
      { session: this.lifetimes('session').refresh, developer: this.lifetimes('developer').refresh },
    );
    if (!pair) {
      await this.revokeIfRotated(claims);
      throw ApiError.unauthorized(INVALID_REFRESH_MESSAGE);
    }
    return this.sign(pair, newJti);
  }

  /** Revokes the pair a refresh token belongs to (`blacklist`). */
  async revokeByRefreshToken(refreshToken: unknown): Promise<void> {
    const claims = this.verifyRefresh(refreshToken);
    if (!(await this.tokenPairRepository.revokeByRefresh(claims.sid, claims.jti, this.clock.now()))) {
      await this.revokeIfRotated(claims);
      throw ApiError.unauthorized(INVALID_REFRESH_MESSAGE);
    }
  }

  /**
   * Reuse detection: a genuine refresh token of an older generation than its pair's was already
   * rotated, so two parties hold the pair's tokens — the client and whoever copied the old token —
   * and there is no telling which is which. The pair it was rotated into is revoked: both must
   * sign in (or generate a developer token) again.
   */
  private async revokeIfRotated(claims: RefreshClaims): Promise<void> {
    await this.tokenPairRepository.revokeRotatedPast(claims.sid, claims.gen, this.clock.now());
  }

  /** Revokes every developer pair of the user; session and connection pairs are left alone. */
  async revokeAllDeveloperPairs(userId: number): Promise<number> {
    return this.tokenPairRepository.revokeAllDeveloper(userId, this.clock.now());
  }

  /** Deletes (revokes) one developer pair of the user; 404 when it is not theirs or not active. */
  async revokeDeveloperPair(userId: number, pairId: string): Promise<void> {
    if (!isUuid(pairId)) throw ApiError.notFound('Developer token not found.');
    const revoked = await this.tokenPairRepository.revoke([pairId], {
      reason: 'deleted',
      now: this.clock.now(),
      userId,
      kinds: ['developer'],
    });
    if (revoked !== 1) throw ApiError.notFound('Developer token not found.');
  }

  /**
   * The caller behind the claims of an access token whose signature and issuer were verified
   * (AccessTokenStrategy), or an ApiError 401: verifiedAccessClaims, then — in one indexed query that
   * also reads the user and their team memberships — that the pair is neither revoked nor rotated
   * past this token's generation and the account is active.
   */
  async authenticateClaims(claims: AccessClaims): Promise<AuthenticatedUser> {
    const verified = this.verifiedAccessClaims(claims);
    return this.callerFromState(verified, await this.tokenPairRepository.pairState(verified.sid));
  }

  /**
   * The same check as authenticateClaims, with the pair's state read by a statement the route runs
   * anyway (UncheckedCaller.state): the claims are checked now, the pair when the route confirms. The
   * caller is marked as used (touch) and set as `request.user` once confirmed.
   */
  uncheckedCaller(claims: AccessClaims, request: AuthenticatedRequest): UncheckedCaller {
    const verified = this.verifiedAccessClaims(claims);
    const confirmed = async (state: PairStateRow | null | undefined): Promise<AuthenticatedUser> => {
      const user = this.callerFromState(verified, state ?? undefined);
      request.user = user;
      await this.touch(user.tokenPairId);
      return user;
    };
    return {
      state: this.tokenPairRepository.pairStateSql(verified.sid),
      confirm: (state) => confirmed(state as PairStateRow | null),
      check: async () => confirmed(await this.tokenPairRepository.pairState(verified.sid)),
    };
  }

  /**
   * The claims of an access token, checked before its pair is read: expiry and not-before against
   * the service clock, the token type, the pair id's shape; an ApiError 401 otherwise.
   */
  private verifiedAccessClaims(claims: AccessClaims): AccessClaims & { sub: string } {
    const now = this.nowSeconds();
    // An access token always carries a numeric `exp`: one without (or with `"exp": "never"`) is refused.
    if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) {
      throw ApiError.unauthorized('The access token is invalid.');
    }
    if (now >= claims.exp) throw ApiError.unauthorized('The access token has expired.');
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || now < claims.nbf)) {
      throw ApiError.unauthorized('The access token is invalid.');
    }
    if (claims.typ !== 'access' || typeof claims.sid !== 'string' || !claims.sub) {
      throw ApiError.unauthorized('The access token is invalid.');
    }
    if (!isUuid(claims.sid)) throw ApiError.unauthorized('The access token is invalid.');
    return claims as AccessClaims & { sub: string };
  }

  /** The caller from the state read of an access token's pair; 401 when the pair may not be used. */
  private callerFromState(claims: AccessClaims & { sub: string }, state: PairStateRow | undefined): AuthenticatedUser {
    const caller = this.pairCaller(claims.sid, claims.gen, claims.sub, state);
    if (!caller) throw ApiError.unauthorized('The access token has been revoked.');
    return caller;
  }

  /**
   * The caller a pair stands for, from its state (TokenPairRepository.pairState): undefined unless the
   * pair is unrevoked, at this generation, the subject's, and its user active.
   */
  private pairCaller(
    sid: string,
    generation: number,
    subject: string,
    row: PairStateRow | undefined,
  ): AuthenticatedUser | undefined {
    if (!row || row.generation !== generation || String(row.user_id) !== subject) return undefined;
    return {
      userId: row.user_id,
      email: row.email,
      isStaff: row.is_staff,
      isAdmin: row.is_admin,
      uploadPermission: row.upload_permission_status === 1,
      tokenPairId: sid,
      tokenKind: row.kind,
      connection: row.connection_name,
      teams: row.teams,
    };
  }

  /**
   * Marks a pair as used (shown as last_used_at in the developer token and session lists); at most
   * once a minute per pair. This process remembers when it last wrote each pair, so the other requests of that minute cost no
   * statement at all.
   */
  async touch(pairId: string): Promise<void> {
    const now = this.clock.now();
    const last = this.touchedAt.get(pairId);
    if (last !== undefined && now.getTime() - last < TOUCH_INTERVAL_MS && now.getTime() >= last) return;
    if (this.touchedAt.size >= TOUCH_MEMORY) this.touchedAt.clear();
    this.touchedAt.set(pairId, now.getTime());
    await this.tokenPairRepository.touch(pairId, now);
  }
}
