import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { StoredFile } from './stored-file.entity';

export interface NewFile {
  filename: string;
  contentType: string;
  content: Buffer;
  ownerUserId: number | null;
  expiresAt?: Date | null;
  /** The size was charged to the owner's storage (chargeStorage) and is given back when the file expires. */
  quotaCharged?: boolean;
}

export interface FileWithContent {
  file: StoredFile;
  content: Buffer;
}

/** Stores and reads files kept in PostgreSQL. */
@Injectable()
export class FilesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async store(input: NewFile, manager?: EntityManager): Promise<StoredFile> {
    const row = {
      id: randomUUID(),
      filename: Array.from(input.filename).slice(0, 255).join(''), // characters, never half of one
      contentType: input.contentType,
      sizeBytes: input.content.length,
      content: input.content,
      ownerUserId: input.ownerUserId,
      expiresAt: input.expiresAt ?? null,
      quotaCharged: input.quotaCharged ?? false,
    };
    await (manager ?? this.dataSource.manager).insert(StoredFile, row);
    const { content: _content, ...meta } = row;
    return { ...meta, createdAt: new Date() } as StoredFile;
  }

  /** The file and its bytes, unless it does not exist or has expired. */
  async read(id: string, now: Date, manager?: EntityManager): Promise<FileWithContent | undefined> {
    const file = await (manager ?? this.dataSource.manager)
      .createQueryBuilder(StoredFile, 'f')
      .addSelect('f.content')
      .where('f.id = :id AND (f.expires_at IS NULL OR f.expires_at > :now)', { id, now })
      .getOne();
    return file ? { file, content: file.content } : undefined;
  }

  /**
   * Adds `bytes` to the user's storage_used when they fit under storage_limit (the user's row is
   * locked until the caller's transaction ends). Returns undefined when charged, otherwise the
   * bytes that are left.
   */
  async chargeStorage(manager: EntityManager, userId: number, bytes: number): Promise<number | undefined> {
    const [quota]: { storage_used: string; storage_limit: string }[] = await manager.query(
      'SELECT storage_used, storage_limit FROM registry_user WHERE id = $1 FOR UPDATE',
      [userId],
    );
    const left = Number(quota.storage_limit) - Number(quota.storage_used);
    if (bytes > left) return Math.max(0, left);
    await manager.query('UPDATE registry_user SET storage_used = storage_used + $2 WHERE id = $1', [userId, bytes]);
    return undefined;
  }

  /** Removes expired files, giving charged bytes back to their owners' storage; returns how many. */
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
