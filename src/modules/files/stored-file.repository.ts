import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { StorageRefund } from '../accounts/user.repository';
import { StoredFile } from './stored-file.entity';

/** A stored_file row as inserted: every column but created_at (the database sets it). */
export type StoredFileRow = Omit<StoredFile, 'createdAt'>;

/**
 * Every SQL statement of `stored_file` (the storage quota its files are charged to is
 * UserRepository's). Statements given a manager run in the caller's transaction.
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

  /**
   * Deletes the files expired by `now`: how many, and the bytes charged to each owner's storage
   * (quota_charged files) that are now to be given back, in owner order.
   */
  async removeExpired(manager: EntityManager, now: Date): Promise<{ removed: number; refunds: StorageRefund[] }> {
    const [row]: { removed: number; refunds: { userId: number; bytes: string }[] }[] = await manager.query(
      `WITH gone AS (
         DELETE FROM stored_file WHERE expires_at IS NOT NULL AND expires_at <= $1
         RETURNING owner_user_id, size_bytes, quota_charged
       ), charged AS (
         SELECT owner_user_id, sum(size_bytes) AS bytes FROM gone
          WHERE quota_charged AND owner_user_id IS NOT NULL GROUP BY owner_user_id
       )
       SELECT (SELECT count(*)::int FROM gone) AS removed,
              COALESCE((SELECT json_agg(json_build_object('userId', owner_user_id, 'bytes', bytes::text)
                                        ORDER BY owner_user_id) FROM charged), '[]') AS refunds`,
      [now],
    );
    return { removed: row.removed, refunds: row.refunds.map((refund) => ({ ...refund, bytes: Number(refund.bytes) })) };
  }
}
