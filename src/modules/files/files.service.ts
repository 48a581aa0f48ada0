import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { UserRepository } from '../accounts/user.repository';
import { StoredFile } from './stored-file.entity';
import { StoredFileRepository } from './stored-file.repository';

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

/**
 * Stores and reads files kept in PostgreSQL (statements in StoredFileRepository), and charges them
 * to their owner's storage (UserRepository).
 */
@Injectable()
export class FilesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly storedFileRepository: StoredFileRepository,
    private readonly userRepository: UserRepository,
  ) {}

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
    await this.storedFileRepository.insert(row, manager);
    const { content: _content, ...meta } = row;
    return { ...meta, createdAt: new Date() } as StoredFile;
  }

  /** The file and its bytes, unless it does not exist or has expired. */
  async read(id: string, now: Date, manager?: EntityManager): Promise<FileWithContent | undefined> {
    const file = await this.storedFileRepository.findUnexpired(id, now, manager);
    return file ? { file, content: file.content } : undefined;
  }

  /**
   * Adds `bytes` to the user's storage_used when they fit under storage_limit (the user's row is
   * locked until the caller's transaction ends). Returns undefined when charged, otherwise the
   * bytes that are left.
   */
  async chargeStorage(manager: EntityManager, userId: number, bytes: number): Promise<number | undefined> {
    const quota = await this.userRepository.lockStorageQuota(manager, userId);
    const left = quota.limit - quota.used;
    if (bytes > left) return Math.max(0, left);
    await this.userRepository.chargeStorage(manager, userId, bytes);
    return undefined;
  }

  /**
   * Removes expired files, giving charged bytes back to their owners' storage in the same
   * transaction; returns how many.
   */
  async removeExpired(now: Date): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const { removed, refunds } = await this.storedFileRepository.removeExpired(manager, now);
      await this.userRepository.refundStorage(manager, refunds);
      return removed;
    });
  }
}
