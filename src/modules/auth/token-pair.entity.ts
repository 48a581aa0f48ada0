import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type TokenKind = 'session' | 'developer' | 'connection';

/**
 * Where a pair was issued, so its user can tell their sessions apart: `api` (POST /api/auth/login/),
 * `browser-password` / `browser-orcid` (the account pages), `cli` (token:create); null before it was recorded.
 */
export const PAIR_ORIGINS = ['api', 'browser-password', 'browser-orcid', 'cli'] as const;
export type PairOrigin = (typeof PAIR_ORIGINS)[number];

/**
 * One access/refresh pair "slot": a login session, a developer token pair or a connection-issued
 * pair. Rotation keeps the slot (the id the developer settings list shows) and bumps `generation`;
 * tokens of an older generation, or of a revoked slot, are refused.
 */
@Entity('token_pair')
@Index(['userId', 'kind'])
export class TokenPair {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  /** Issue order: "the oldest pair" must not depend on two pairs having different timestamps. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column({ type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 12 })
  kind: TokenKind;

  @Column({ type: 'varchar', length: 100, nullable: true })
  connectionName: string | null;

  @Column({ type: 'integer', default: 1 })
  generation: number;

  /** The `jti` of the one refresh token of this slot that may still be used. */
  @Column({ type: 'uuid', unique: true })
  refreshJti: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  revokedReason: string | null;

  @Column({ type: 'varchar', length: 20, nullable: true })
  origin: PairOrigin | null;
}
