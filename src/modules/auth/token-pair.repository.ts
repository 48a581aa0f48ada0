import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { AuthenticatedUser } from '../../core/auth/authenticated-user';
import { pooledQuery } from '../../core/database/prepared-query';
import { Sql, sql } from '../../core/database/sql';
import { TokenKind, TokenPair } from './token-pair.entity';

/** A pair's state and its user's, as the bearer-token check reads them. */
export interface PairStateRow {
  user_id: number;
  email: string | null;
  is_staff: boolean;
  is_admin: boolean;
  upload_permission_status: number | null;
  kind: TokenKind;
  connection_name: string | null;
  generation: number;
  teams: NonNullable<AuthenticatedUser['teams']>;
}

interface TokenPairRow {
  id: string;
  user_id: number;
  kind: TokenKind;
  connection_name: string | null;
  generation: number;
  expires_at: Date;
}

/**
 * The unrevoked pair and its active user with their team memberships, as one JSON value
 * (PairStateRow), NULL when the pair is revoked or unknown or the account inactive: a scalar
 * subquery another statement may select beside its own columns (a fetch by IGSN checks the
 * caller's token in its own round trip), or that pairState runs alone.
 */
export function pairStateSql(id: string): Sql {
  return sql`(SELECT json_build_object(
            'user_id', u.id, 'email', u.email, 'is_staff', u.is_staff, 'is_admin', u.is_admin,
            'upload_permission_status', u.upload_permission_status,
            'kind', tp.kind, 'connection_name', tp.connection_name, 'generation', tp.generation,
            'teams', COALESCE((SELECT json_agg(json_build_object('teamId', tm.team_id, 'role', tm.role))
                                 FROM team_member tm WHERE tm.user_id = u.id), '[]'))
       FROM token_pair tp JOIN registry_user u ON u.id = tp.user_id
      WHERE tp.id = ${id}::uuid AND tp.revoked_at IS NULL AND u.is_active)`;
}

/**
 * Every SQL statement of `token_pair`. Revocations and rotation are conditional UPDATEs that
 * report how many rows they changed, so of concurrent uses exactly one wins; statements given a
 * manager run in the caller's transaction.
 */
@Injectable()
export class TokenPairRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Unrevoked pairs of these kinds, oldest first (expired ones included). */
  async unrevoked(
    userId: number,
    kinds: TokenKind[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<TokenPair[]> {
    return manager.find(TokenPair, {
      where: { userId, kind: In(kinds), revokedAt: IsNull() },
      order: { createdAt: 'ASC', seq: 'ASC' },
    });
  }

  async insert(manager: EntityManager, fields: Partial<TokenPair>): Promise<TokenPair> {
    const pair = manager.create(TokenPair, fields);
    await manager.insert(TokenPair, pair);
    return pair;
  }

  /**
   * Swaps the refresh token `jti` of pair `id` for `newJti` in one conditional UPDATE (unrevoked,
   * unexpired, user active), with a new lifetime by kind; the rotated pair, or undefined.
   */
  async rotate(
    rotation: { id: string; jti: string; newJti: string; now: Date },
    refreshSeconds: { session: number; developer: number },
  ): Promise<TokenPair | undefined> {
    const rows: TokenPairRow[] = await this.dataSource
      .query(
        `UPDATE token_pair SET refresh_jti = $3, generation = generation + 1, last_used_at = $4,
               expires_at = $4::timestamptz
                 + make_interval(secs => CASE WHEN kind = 'session' THEN $5::float8 ELSE $6::float8 END)
        WHERE id = $1 AND refresh_jti = $2 AND revoked_at IS NULL AND expires_at > $4
          AND EXISTS (SELECT 1 FROM registry_user u WHERE u.id = token_pair.user_id AND u.is_active)
        RETURNING id, user_id, kind, connection_name, generation, expires_at`,
        [rotation.id, rotation.jti, rotation.newJti, rotation.now, refreshSeconds.session, refreshSeconds.developer],
      )
      .then((result: [TokenPairRow[], number]) => result[0]);
    if (rows.length !== 1) return undefined;
    const row = rows[0];
    return this.dataSource.manager.create(TokenPair, {
      id: row.id,
      userId: row.user_id,
      kind: row.kind,
      connectionName: row.connection_name,
      generation: row.generation,
      expiresAt: row.expires_at,
    });
  }

  /** Revokes the pair whose current refresh token is `jti` (`blacklist`); false when none is. */
  async revokeByRefresh(id: string, jti: string, now: Date): Promise<boolean> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE token_pair SET revoked_at = $3, revoked_reason = 'blacklisted'
        WHERE id = $1 AND refresh_jti = $2 AND revoked_at IS NULL`,
      [id, jti, now],
    );
    return result[1] === 1;
  }

  /** Revokes the pair when it was rotated past generation `generation` (refresh-token reuse). */
  async revokeRotatedPast(id: string, generation: number, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE token_pair SET revoked_at = $3, revoked_reason = 'refresh-token-reuse'
        WHERE id = $1 AND generation > $2 AND revoked_at IS NULL`,
      [id, generation, now],
    );
  }

  /** Revokes every active developer pair of the user; returns how many. */
  async revokeAllDeveloper(userId: number, now: Date): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `UPDATE token_pair SET revoked_at = $2, revoked_reason = 'blacklist-all'
        WHERE user_id = $1 AND kind = 'developer' AND revoked_at IS NULL AND expires_at > $2`,
      [userId, now],
    );
    return result[1];
  }

  /** Revokes these unrevoked pairs of these kinds (of `userId` only, when given); returns how many. */
  async revoke(
    ids: string[],
    revocation: { reason: string; now: Date; kinds: TokenKind[]; userId?: number },
    manager: EntityManager = this.dataSource.manager,
  ): Promise<number> {
    if (ids.length === 0) return 0;
    const result: [unknown[], number] = await manager.query(
      `UPDATE token_pair SET revoked_at = $2, revoked_reason = $3
        WHERE id = ANY($1::uuid[]) AND revoked_at IS NULL AND kind = ANY($5::varchar[])
          AND ($4::integer IS NULL OR user_id = $4)`,
      [ids, revocation.now, revocation.reason, revocation.userId ?? null, revocation.kinds],
    );
    return result[1];
  }

  /** pairStateSql, for a statement of another repository (see UncheckedCaller). */
  pairStateSql(id: string): Sql {
    return pairStateSql(id);
  }

  /**
   * pairStateSql alone, in one indexed query. Prepared once per pooled connection: planning it cost
   * more than running it, on every request.
   */
  async pairState(id: string): Promise<PairStateRow | undefined> {
    const { text, values } = sql`SELECT ${this.pairStateSql(id)} AS state`.toQuery();
    const rows = await pooledQuery<{ state: PairStateRow | null }>(this.dataSource, text, values, 'token_pair_state');
    return rows[0]?.state ?? undefined;
  }

  /** Sets last_used_at unless it was set less than a minute before `now`. */
  async touch(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE token_pair SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  }
}
