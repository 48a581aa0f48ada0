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
      filename: input.filename.slice(0, 255),
      contentType: input.contentType,
      sizeBytes: input.content.length,
      content: input.content,
      ownerUserId: input.ownerUserId,
      expiresAt: input.expiresAt ?? null,
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

  /** Removes expired files; returns how many. */
  async removeExpired(now: Date): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      'DELETE FROM stored_file WHERE expires_at IS NOT NULL AND expires_at <= $1',
      [now],
    );
    return result[1];
  }
}
