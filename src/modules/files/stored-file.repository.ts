import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { StoredFile } from './stored-file.entity';

/** A stored_file row as inserted: every column but created_at (the database sets it). */
export type StoredFileRow = Omit<StoredFile, 'createdAt'>;

/**
 * Every SQL statement of `stored_file`, and of the storage quota its files are charged to
 * (registry_user.storage_used / storage_limit). Statements given a manager run in the caller's
 * transaction.
 */
@Injectable()
export class StoredFileRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(row: StoredFileRow, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.insert(StoredFile, row);
  }

  /** The file with its bytes, unless it does not exist or expired by `now`. */
  async findUnexpired(
    id: string,
    now: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<StoredFile | null> {
    return manager
      .createQueryBuilder(StoredFile, 'f')
      .addSelect('f.content')
      .where('f.id = :id AND (f.expires_at IS NULL OR f.expires_at > :now)', { id, now })
      .getOne();
  }

  /** The user's storage use and limit, the user's row locked until the transaction ends. */
  async lockQuota(manager: EntityManager, userId: number): Promise<{ used: number; limit: number }> {
    const [quota]: { storage_used: string; storage_limit: string }[] = await manager.query(
      'SELECT storage_used, storage_limit FROM registry_user WHERE id = $1 FOR UPDATE',
      [userId],
    );
    return { used: Number(quota.storage_used), limit: Number(quota.storage_limit) };
  }

  async addStorageUsed(manager: EntityManager, userId: number, bytes: number): Promise<void> {
    await manager.query('UPDATE registry_user SET storage_used = storage_used + $2 WHERE id = $1', [userId, bytes]);
  }

  /** Deletes the files expired by `now`, giving charged bytes back to their owners; returns how many. */
  async removeExpired(now: Date): Promise<number> {
    const rows: { removed: number }[] = await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM stored_file WHERE expires_at IS NOT NULL AND expires_at <= $1
         RETURNING owner_user_id, size_bytes, quota_charged
       ), refunded AS (
         UPDATE registry_user u SET storage_used = GREATEST(0, u.storage_used - g.bytes)
           FROM (SELECT owner_user_id, sum(size_bytes) AS bytes FROM gone WHERE quota_charged GROUP BY owner_user_id) g
          WHERE u.id = g.owner_user_id
       )
       SELECT count(*)::int AS removed FROM gone`,
      [now],
    );
    return rows[0].removed;
  }
}
