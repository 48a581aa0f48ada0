import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { User } from './user.entity';

/** Bytes given back to one user's storage (an expired file that was charged to it). */
export interface StorageRefund {
  userId: number;
  bytes: number;
}

/**
 * Every SQL statement of `registry_user`, including the row locks and the storage quota other
 * features take on it (token pairs, exports, stored files). Statements given a manager run in the
 * caller's transaction.
 */
@Injectable()
export class UserRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async existsBy(manager: EntityManager, where: { email: string } | { orcid: string }): Promise<boolean> {
    return manager.existsBy(User, where);
  }

  async insert(manager: EntityManager, fields: Partial<User>): Promise<User> {
    return manager.save(manager.create(User, fields));
  }

  /** The active account of this email (as citext compares it) that has a password, with its hash. */
  async findActiveWithPassword(email: string): Promise<(User & { email: string; passwordHash: string }) | null> {
    return this.dataSource
      .createQueryBuilder(User, 'user')
      .addSelect('user.passwordHash')
      .where('user.email = :email AND user.is_active AND user.password_hash IS NOT NULL', { email })
      .getOne() as Promise<(User & { email: string; passwordHash: string }) | null>;
  }

  /** Replaces the hash, only while it is still `previous` (a concurrent password change wins). */
  async replacePasswordHash(userId: number, previous: string, next: string): Promise<void> {
    await this.dataSource.query('UPDATE registry_user SET password_hash = $3 WHERE id = $1 AND password_hash = $2', [
      userId,
      previous,
      next,
    ]);
  }

  /** The account of this email, as citext compares it. */
  async findByEmail(email: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOne({ where: { email } });
  }

  async findByOrcid(orcid: string, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return manager.findOne(User, { where: { orcid } });
  }

  /** Links the ORCID iD to the account unless it has another one; false when it had. */
  async linkOrcid(manager: EntityManager, userId: number, orcid: string): Promise<boolean> {
    const result: [unknown[], number] = await manager.query(
      'UPDATE registry_user SET orcid = $2 WHERE id = $1 AND (orcid IS NULL OR orcid = $2)',
      [userId, orcid],
    );
    return result[1] === 1;
  }

  /** Gives the account upload permission (upload_permission_status 1). */
  async grantUploadPermission(manager: EntityManager, userId: number): Promise<void> {
    await manager.query('UPDATE registry_user SET upload_permission_status = 1 WHERE id = $1', [userId]);
  }

  /** The account with its linked individual. */
  async findWithIndividual(id: number, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return manager.findOne(User, { where: { id }, relations: { individual: true } });
  }

  /** These accounts with their linked individuals (missing ids are left out). */
  async findManyWithIndividual(ids: number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    return this.dataSource.getRepository(User).find({ where: { id: In(ids) }, relations: { individual: true } });
  }

  /** The active account; with `lock`, share-locked until the caller's transaction ends. */
  async findActive(id: number, manager: EntityManager = this.dataSource.manager, lock = false): Promise<User | null> {
    return manager.findOne(User, {
      where: { id, isActive: true },
      ...(lock ? { lock: { mode: 'pessimistic_read' as const } } : {}),
    });
  }

  /** Locks the user's row until the transaction ends: that user's guarded writes take turns. */
  async lockForUpdate(manager: EntityManager, userId: number): Promise<void> {
    await manager.query('SELECT 1 FROM registry_user WHERE id = $1 FOR UPDATE', [userId]);
  }

  /** The user's storage use and limit, the user's row locked until the transaction ends. */
  async lockStorageQuota(manager: EntityManager, userId: number): Promise<{ used: number; limit: number }> {
    const [quota]: { storage_used: string; storage_limit: string }[] = await manager.query(
      'SELECT storage_used, storage_limit FROM registry_user WHERE id = $1 FOR UPDATE',
      [userId],
    );
    return { used: Number(quota.storage_used), limit: Number(quota.storage_limit) };
  }

  async chargeStorage(manager: EntityManager, userId: number, bytes: number): Promise<void> {
    await manager.query('UPDATE registry_user SET storage_used = storage_used + $2 WHERE id = $1', [userId, bytes]);
  }

  /** Gives bytes back to users' storage, never below zero. */
  async refundStorage(manager: EntityManager, refunds: StorageRefund[]): Promise<void> {
    if (refunds.length === 0) return;
    await manager.query(
      `UPDATE registry_user u SET storage_used = GREATEST(0, u.storage_used - g.bytes)
         FROM unnest($1::int[], $2::bigint[]) AS g(owner_user_id, bytes)
        WHERE u.id = g.owner_user_id`,
      [refunds.map((refund) => refund.userId), refunds.map((refund) => refund.bytes)],
    );
  }
}
